"""What kcli saw of each topic's partitions, kept in its state directory
(``$XDG_STATE_HOME/kcli/partitions/<cluster id>.json``): when each partition was first seen, and
when its topic was last seen without it. Every command that lists a topic's partitions records
what it saw (KafkaAdmin, the one place), so an operator who runs kcli now and then gets bounds
on a partition's creation time as tight as the interval between runs, on any broker:

- a partition seen at time T existed then: created at or before T (the answer's arrival);
- a topic seen with N partitions at time S had no partition N yet: partition N was created after
  S (the request's departure). A broker's metadata may trail the controller's by milliseconds,
  so this bound can be that much late; it proves a partition young, the side that replays.

Per topic the file keeps the partition count, the last time the topic was seen, and one span per
growth: ``[first partition, first seen ms, seen without ms or null]`` (partitions come in ranges).
A topic seen with another topic id, or with fewer partitions later, was recreated: its history is
dropped. Lost updates between two kcli processes only lose sightings, never invent one.
"""

from __future__ import annotations

import os
import re

from kcli.xdg import state_dir

VERSION = 1


def path_for(cluster_id: str | None) -> str:
    return state_dir("partitions", re.sub(r"[^A-Za-z0-9._-]", "-", cluster_id or "cluster") + ".json")


def load(path: str) -> dict[str, dict]:
    """The topics' records; an unreadable or foreign file is no record."""
    import json                          # on use: a command that lists no partitions loads none

    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError):
        return {}
    topics = doc.get("topics") if isinstance(doc, dict) and doc.get("version") == VERSION else None
    if not isinstance(topics, dict):
        return {}
    return {name: rec for name, rec in topics.items() if _valid(rec)}


def _valid(rec) -> bool:
    return (isinstance(rec, dict) and type(rec.get("count")) is int and type(rec.get("last")) is int
            and isinstance(rec.get("spans"), list)
            and all(isinstance(s, list) and len(s) == 3 and type(s[0]) is int and type(s[1]) is int
                    and (s[2] is None or type(s[2]) is int) for s in rec["spans"]))


def merge(topics: dict[str, dict], seen: dict[str, tuple[str | None, int]], sent_ms: int,
          received_ms: int) -> bool:
    """Adds one answer's sightings ({topic: (topic id or None, partition count)}, asked at
    ``sent_ms``, answered by ``received_ms``) to ``topics``; whether anything changed."""
    changed = False
    for name, (topic_id, count) in seen.items():
        if count <= 0:
            continue
        rec = topics.get(name)
        if rec is not None and topic_id and rec.get("id") and rec["id"] != topic_id:
            rec = None                                       # recreated under the same name
        if rec is not None and count < rec["count"]:
            if sent_ms <= rec["last"]:
                continue                                     # an older answer than the record
            rec = None                                       # partitions never shrink: recreated
        if rec is None:
            topics[name] = {"id": topic_id, "count": count, "last": sent_ms, "spans": [[0, received_ms, None]]}
            changed = True
            continue
        if count > rec["count"]:
            rec["spans"].append([rec["count"], received_ms, rec["last"] if rec["last"] < received_ms else None])
            rec["count"] = count
        if sent_ms > rec["last"] and count == rec["count"]:
            rec["last"] = sent_ms
        if topic_id and not rec.get("id"):
            rec["id"] = topic_id
        changed = True
    return changed


def save(path: str, topics: dict[str, dict]) -> None:
    """Written whole to a new file, then renamed over the old one; a state directory kcli cannot
    write loses the sightings, never the command."""
    import json

    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump({"version": VERSION, "topics": topics}, fh, sort_keys=True, separators=(",", ":"))
        os.replace(tmp, path)
    except OSError:
        pass


def record(path: str, seen: dict[str, tuple[str | None, int]], sent_ms: int, received_ms: int) -> None:
    topics = load(path)
    if merge(topics, seen, sent_ms, received_ms):
        save(path, topics)


def bounds(topics: dict[str, dict], name: str, partition: int) -> tuple[int | None, int] | None:
    """(created after ms or None, created at or before ms) of one partition, None when kcli never
    saw it."""
    rec = topics.get(name)
    if rec is None or partition >= rec["count"]:
        return None
    span = max((s for s in rec["spans"] if s[0] <= partition), key=lambda s: s[0], default=None)
    return None if span is None else (span[2], span[1])


def of_topics(path: str, topics: list[str]) -> dict[tuple[str, int], tuple[int | None, int]]:
    """(created after ms or None, created at or before ms) of every partition of ``topics`` kcli
    has seen, from the file at ``path``."""
    recorded = load(path)
    return {(t, p): b for t in topics for p in range(recorded.get(t, {}).get("count", 0))
            if (b := bounds(recorded, t, p)) is not None}
