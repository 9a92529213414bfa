"""describe log-dirs' view: one row per replica (TOPIC, PARTITION, BROKER, LOG-DIR, SIZE,
OFFSET-LAG, FUTURE), sizes in bytes; JSON schema ``kcli.log-dirs/v1``."""

from __future__ import annotations

from kcli.model import LogDirInfo, ReplicaLogDir
from kcli.render.output import Output, Table, json_document, size_cell

COLUMNS = ["TOPIC", "PARTITION", "BROKER", "LOG-DIR", "SIZE", "OFFSET-LAG", "FUTURE"]


def render_log_dirs(out: Output, rows: list[ReplicaLogDir]) -> None:
    if out.format == "json":
        out.json(json_document("log-dirs", replicas=[
            {"topic": r.topic, "partition": r.partition, "broker": r.broker, "logDir": r.log_dir,
             "sizeBytes": r.size_bytes, "offsetLag": r.offset_lag, "future": r.future} for r in rows]))
        return
    table = Table(list(COLUMNS))
    table.rows = [[r.topic, str(r.partition), str(r.broker), r.log_dir,
                   size_cell(r.size_bytes) if out.format == "table" else str(r.size_bytes),
                   str(r.offset_lag), "yes" if r.future else "no"] for r in rows]
    out.view(table)


def _java_map(entries: dict) -> dict:
    """An anonymous ``new HashMap<>() {{ put(...) }}`` of the tool: its keys in the map's order."""
    from kcli import javaorder

    return {key: entries[key] for key in javaorder.strings(entries)}


def render_dropin(brokers: list[int], dirs: list[LogDirInfo], topics: list[str]) -> str:
    """kafka-log-dirs' JSON line: Jackson's writeValueAsString of the tool's HashMaps, in their
    orders (the admin client's maps of brokers, of each broker's log dirs by name and of each
    dir's replicas by TopicPartition, copied by the topic filter). ``brokers``: the ones asked,
    in the order the tool asks them."""
    import json

    from kcli import javaorder
    from kcli.render.javatext import exception_class

    by_broker: dict[int, list[LogDirInfo]] = {b: [] for b in brokers}
    for d in dirs:
        by_broker[d.broker].append(d)

    def replicas(d: LogDirInfo) -> list[dict]:
        info = {(r.topic, r.partition): r for r in d.replicas}
        kept = [tp for tp in javaorder.topic_partitions(info) if not topics or tp[0] in topics]
        return [_java_map({"partition": f"{t}-{p}", "size": info[t, p].size_bytes,
                           "offsetLag": info[t, p].offset_lag, "isFuture": info[t, p].future})
                for t, p in javaorder.topic_partitions(kept)]

    def log_dirs(named: list[LogDirInfo]) -> list[dict]:
        by_name = {d.log_dir: d for d in named}
        return [_java_map({"logDir": name, "error": exception_class(by_name[name].error_code),
                           "partitions": replicas(by_name[name])})
                for name in javaorder.strings(by_name, len(named))]

    answered = javaorder.integers(by_broker, len(brokers))
    doc = _java_map({"version": 1, "brokers": [_java_map({"broker": b, "logDirs": log_dirs(by_broker[b])})
                                                for b in answered]})
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False) + "\n"
