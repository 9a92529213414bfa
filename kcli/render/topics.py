"""Topic views: kafka-topics' describe layout (plain), a table, JSON (schema kcli.topics/v1)."""

from __future__ import annotations

from kcli.model import PartitionInfo, TopicInfo
from kcli.render.output import Output, Table, json_document, null, size_cell, time_cell
from kcli.times import format_ms, time_field

NOT_AVAILABLE, NO_LEADER = null("N/A"), null("none")    # kafka-topics' words; empty cells in CSV


def _ids(ids: list[int] | None) -> str:
    """Node ids joined by commas (an empty list: an empty cell); N/A where the broker cannot say."""
    return NOT_AVAILABLE if ids is None else ",".join(str(i) for i in ids)


def _leader(p: PartitionInfo) -> str:
    return NO_LEADER if p.leader is None or p.leader < 0 else str(p.leader)


def plain_summary(t: TopicInfo) -> str:
    parts = [f"Topic: {t.name}"]
    if t.topic_id:
        parts.append(f"TopicId: {t.topic_id}")
    parts += [f"PartitionCount: {len(t.partitions)}", f"ReplicationFactor: {t.replication_factor}",
              "Configs: " + ",".join(f"{k}={v}" for k, v in t.configs.items())]
    return "\t".join(parts)


def plain_partition(t: TopicInfo, p: PartitionInfo) -> str:
    line = (f"\tTopic: {t.name}\tPartition: {p.partition}\tLeader: {_leader(p)}"
            f"\tReplicas: {_ids(p.replicas)}\tIsr: {_ids(p.isr)}"
            f"\tElr: {_ids(p.elr)}\tLastKnownElr: {_ids(p.last_known_elr)}")
    if p.creation_time_ms is not None:        # KIP-1327: omitted when the broker cannot report it
        line += f"\tCreationTimeMs: {format_ms(p.creation_time_ms)}"
    return line


def render_describe(out: Output, topics: list[tuple[TopicInfo, list[PartitionInfo]]],
                    summaries: bool, sizes: dict[tuple[str, int], int | None] | None = None) -> None:
    """``topics`` pairs each topic with the partitions to show (all, or those a report filter
    kept), in kafka-topics' order, which plain keeps; the other formats sort by name. ``sizes``
    (kcli.ops.topics.partition_sizes; None: not asked, as for plain), each partition's bytes:
    a SIZE column, JSON's sizeBytes."""
    if out.format != "plain":
        topics = sorted(topics, key=lambda pair: pair[0].name)
    if out.format == "json":
        out.json(json_document("topics", topics=[_topic_json(t, parts, summaries, sizes) for t, parts in topics]))
        return
    if out.format == "plain":
        for t, parts in topics:
            if summaries:
                out.line(plain_summary(t))
            for p in parts:
                out.line(plain_partition(t, p))
        return
    if out.format == "table" and not (topics if summaries else any(parts for _, parts in topics)):
        out.line("(none)")         # nothing matched (a report filter on a healthy cluster): no bare header
        return
    if summaries and (out.format == "table" or not any(parts for _, parts in topics)):
        out.table(summary_table([t for t, _ in topics]))     # csv: with --topics-with-overrides
        if not any(parts for _, parts in topics):
            return
        out.line()
    show_ct = any(p.creation_time_ms is not None for _, parts in topics for p in parts)
    columns = ["TOPIC", "PARTITION", "LEADER", "REPLICAS", "ISR", "ELR", "LAST-KNOWN-ELR"]
    if show_ct:
        columns.append("CREATION-TIME")
    if sizes is not None:
        columns.append("SIZE")
    table = Table(columns)
    for t, parts in topics:
        for p in parts:
            row = [t.name, str(p.partition), _leader(p), _ids(p.replicas), _ids(p.isr),
                   _ids(p.elr), _ids(p.last_known_elr)]
            if show_ct:
                row.append(time_cell(p.creation_time_ms) if p.creation_time_ms is not None else "")
            if sizes is not None:
                row.append(size_cell(sizes.get((t.name, p.partition))))
            table.add(row)
    out.table(table)


def summary_table(topics: list[TopicInfo]) -> Table:
    """One row per topic: kafka-topics' summary line (TopicId, PartitionCount, ReplicationFactor,
    Configs), the overrides as ``name=value`` separated by ", " (where the cell may wrap)."""
    return Table(["TOPIC", "TOPIC-ID", "PARTITIONS", "REPLICATION-FACTOR", "CONFIGS"], [
        [t.name, t.topic_id or "", str(len(t.partitions)), str(t.replication_factor),
         ", ".join(f"{k}={v}" for k, v in t.configs.items())] for t in topics])


def _topic_json(t: TopicInfo, parts: list[PartitionInfo], summaries: bool,
                sizes: dict[tuple[str, int], int | None] | None) -> dict:
    doc: dict[str, object] = {"name": t.name, "topicId": t.topic_id, "internal": t.internal,
                              "partitionCount": len(t.partitions), "replicationFactor": t.replication_factor}
    if summaries:
        doc["configs"] = dict(t.configs)
    partitions: list[dict[str, object]] = []
    doc["partitions"] = partitions
    for p in parts:
        leader = p.leader if p.leader is not None and p.leader >= 0 else None
        pd: dict[str, object] = {"partition": p.partition, "leader": leader, "replicas": p.replicas, "isr": p.isr,
                                 "elr": p.elr, "lastKnownElr": p.last_known_elr}
        if p.creation_time_ms is not None:
            ct = time_field(p.creation_time_ms)
            pd["creationTimeMs"], pd["creationTime"] = ct["ms"], ct["iso"]
        if sizes is not None:
            pd["sizeBytes"] = sizes.get((t.name, p.partition))
        partitions.append(pd)
    return doc


def render_list(out: Output, names: list[str]) -> None:
    if out.format == "json":
        out.json(json_document("topic-list", topics=names))
    elif out.format in ("plain", "table"):
        out.write("\n".join(names) + "\n")
    else:
        out.table(Table(["TOPIC"], [[n] for n in names]))


# -- changes (create/alter/delete): the Kafka tools' lines, or one JSON document --------------
def render_created(out: Output, name: str, created: bool) -> None:
    if out.format == "json":
        out.json(json_document("topic-create", topic=name, created=created))
    elif created:
        out.line(f"Created topic {name}.")


def render_altered(out: Output, changes: list[tuple[str, int]], partitions: int) -> None:
    if out.format == "json":
        out.json(json_document("topic-alter", topics=[
            {"topic": name, "partitionsBefore": before, "partitionsAfter": partitions}
            for name, before in changes]))
        return
    if out.format == "plain":
        return                              # kafka-topics prints nothing on success
    for name, before in changes:
        out.line(f"Topic {name}: partitions {before} -> {partitions}")


def render_deleted(out: Output, names: list[str], executed: bool = True) -> None:
    """The deleted topics, or with ``executed`` False those a dry run would delete."""
    if out.format == "json":
        out.json(json_document("topic-delete", topics=names, executed=executed))
        return
    if out.format == "plain":
        if not executed:                    # a dry run: the names, one a line
            for name in names:
                out.line(name)
        return                              # kafka-topics prints nothing on success
    for name in names:
        out.line(f"Deleted topic {name}." if executed else f"Would delete topic {name}.")
