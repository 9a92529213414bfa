"""Durable group state: committed offsets and group records, as an append-only JSON-lines log
under ``<data_dir>/groups`` (fsync per write), compacted into a fresh file when loaded.

Without a data dir everything stays in memory. Record kinds:
- ``{"k": "offset", "g", "t", "p", "o", "e", "m", "ts", "id"}``: a committed offset;
- ``{"k": "unoffset", "g", "t", "p"}``: an offset deleted;
- ``{"k": "group", "g", "type", "ptype", "created", "epoch", "aepoch"[, "topo"]}``: a group's
  durable attributes (``aepoch``, the target assignment epoch, absent in older logs: ``epoch``;
  ``topo``, a streams group's topology, absent for other groups);
- ``{"k": "ungroup", "g"}``: a group and its offsets deleted;
- ``{"k": "share", "g", "t", "p", "v"}``: a share-partition's state (``v``: the topic id's
  share-partition snapshot, kcli.broker.groups.share; null: deleted);
- ``{"k": "gconf", "g", "c"}``: a group's dynamic configs (IncrementalAlterConfigs type GROUP).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from kcli.broker.files import replace_durably

LOG_NAME = "groups.log"


@dataclass(frozen=True)
class Committed:
    offset: int
    leader_epoch: int
    metadata: str | None
    commit_timestamp_ms: int
    topic_id: str | None        # the topic's id when committed (a recreated topic does not match)


@dataclass
class GroupRecord:
    type: str                   # "classic", "consumer", "streams" or "share"
    protocol_type: str | None = None
    creation_time_ms: int = -1
    epoch: int = 0
    assignment_epoch: int | None = None
    topology: dict | None = None    # a streams group's (Topology.to_json)


class GroupStore:
    def __init__(self, data_dir: Path | None):
        self.offsets: dict[str, dict[tuple[str, int], Committed]] = {}
        self.groups: dict[str, GroupRecord] = {}
        self.share: dict[str, dict[tuple[str, int], dict]] = {}     # group -> (topic id, p) -> snapshot
        self.group_configs: dict[str, dict[str, str]] = {}
        self._file: TextIO | None = None
        if data_dir is not None:
            directory = Path(data_dir) / "groups"
            directory.mkdir(parents=True, exist_ok=True)
            self._path = directory / LOG_NAME
            self._load()
            self._compact()

    # ---- writes --------------------------------------------------------------------------
    def commit(self, group: str, entries: list[tuple[str, int, Committed]]) -> None:
        for topic, partition, c in entries:
            self.offsets.setdefault(group, {})[(topic, partition)] = c
        self._append([_offset_line(group, t, p, c) for t, p, c in entries])

    def delete_offsets(self, group: str, keys: list[tuple[str, int]]) -> None:
        existing = self.offsets.get(group, {})
        gone = [k for k in keys if existing.pop(k, None) is not None]
        self._append([{"k": "unoffset", "g": group, "t": t, "p": p} for t, p in gone])

    def put_group(self, group: str, record: GroupRecord) -> None:
        if self.groups.get(group) == record:
            return
        self.groups[group] = GroupRecord(**vars(record))
        self._append([_group_line(group, record)])

    def delete_group(self, group: str) -> None:
        self.groups.pop(group, None)
        self.offsets.pop(group, None)
        self.share.pop(group, None)
        self.group_configs.pop(group, None)
        self._append([{"k": "ungroup", "g": group}])

    def put_share(self, group: str, topic_id: str, partition: int, snapshot: dict | None) -> None:
        states = self.share.setdefault(group, {})
        if snapshot is None:
            if states.pop((topic_id, partition), None) is None:
                return
        elif states.get((topic_id, partition)) == snapshot:
            return
        else:
            states[(topic_id, partition)] = snapshot
        self._append([{"k": "share", "g": group, "t": topic_id, "p": partition, "v": snapshot}])

    def put_group_configs(self, group: str, configs: dict[str, str]) -> None:
        self.group_configs[group] = dict(configs)
        self._append([{"k": "gconf", "g": group, "c": configs}])

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    # ---- the log -------------------------------------------------------------------------
    def _append(self, lines: list[dict]) -> None:
        if self._file is None or not lines:
            return
        self._file.write("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))
        self._file.flush()
        os.fsync(self._file.fileno())

    def _load(self) -> None:
        if not self._path.exists():
            return
        with open(self._path, encoding="utf-8") as f:
            for line in f:
                try:
                    self._apply(json.loads(line))
                except (ValueError, KeyError):
                    break       # a torn tail: everything before it is whole

    def _apply(self, r: dict) -> None:
        kind, group = r["k"], r["g"]
        if kind == "offset":
            self.offsets.setdefault(group, {})[(r["t"], r["p"])] = Committed(
                r["o"], r["e"], r["m"], r["ts"], r["id"])
        elif kind == "unoffset":
            self.offsets.get(group, {}).pop((r["t"], r["p"]), None)
        elif kind == "group":
            self.groups[group] = GroupRecord(r["type"], r["ptype"], r["created"], r["epoch"],
                                             r.get("aepoch", r["epoch"]), r.get("topo"))
        elif kind == "ungroup":
            self.groups.pop(group, None)
            self.offsets.pop(group, None)
            self.share.pop(group, None)
            self.group_configs.pop(group, None)
        elif kind == "share":
            if r["v"] is None:
                self.share.get(group, {}).pop((r["t"], r["p"]), None)
            else:
                self.share.setdefault(group, {})[(r["t"], r["p"])] = r["v"]
        elif kind == "gconf":
            self.group_configs[group] = r["c"]
        else:
            raise KeyError(kind)

    def _compact(self) -> None:
        def write(f) -> None:
            for group, record in self.groups.items():
                f.write(json.dumps(_group_line(group, record)) + "\n")
            for group, offsets in self.offsets.items():
                for (t, p), c in offsets.items():
                    f.write(json.dumps(_offset_line(group, t, p, c)) + "\n")
            for group, states in self.share.items():
                for (t, p), snapshot in states.items():
                    f.write(json.dumps({"k": "share", "g": group, "t": t, "p": p, "v": snapshot}) + "\n")
            for group, configs in self.group_configs.items():
                f.write(json.dumps({"k": "gconf", "g": group, "c": configs}) + "\n")
        replace_durably(self._path, write)
        self._file = open(self._path, "a", encoding="utf-8")


def _group_line(group: str, r: GroupRecord) -> dict:
    line: dict[str, object] = {"k": "group", "g": group, "type": r.type, "ptype": r.protocol_type,
            "created": r.creation_time_ms, "epoch": r.epoch, "aepoch": r.assignment_epoch}
    if r.topology is not None:
        line["topo"] = r.topology
    return line


def _offset_line(group: str, topic: str, partition: int, c: Committed) -> dict:
    return {"k": "offset", "g": group, "t": topic, "p": partition, "o": c.offset, "e": c.leader_epoch,
            "m": c.metadata, "ts": c.commit_timestamp_ms, "id": c.topic_id}
