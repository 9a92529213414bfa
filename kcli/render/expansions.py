"""``check expansions``: one row per recently added partition (an expansion) and consumer group
with commits on its topic (``-`` for the group when no group has any), in every format; JSON schema
``kcli.expansions/v1``; plain is the table in the Kafka tools' padded layout. SOURCE says what
dates the partition: the broker (KIP-1327), kcli's sightings (observed), or nothing (unknown).
On an observed row CREATED is the latest the partition can have been created at (first seen)."""

from __future__ import annotations

from kcli.model import ExpansionReport, GroupExposure, YoungPartition
from kcli.render.output import NULL, Output, Table, duration_cell, duration_column, json_document, time_cell
from kcli.times import format_duration_ms, time_field

MISSING = NULL
COLUMNS = ["TOPIC", "PARTITION", "CREATED", duration_column("AGE"), "SOURCE", "GROUP", "YOUNGER-THAN-GROUP",
           "COMMITTED", "LOG-START", "LOG-END", "EXPOSED", "SUSPECTED-LOST", "STATUS"]
LOST_NOTE = ("LOST? is suspected, not known: kcli saw these records while the group had no commit "
             "there, and its commit is now past them. A group that started at earliest or "
             "to_start_time read them and looks the same from the broker: check the consumers' "
             "auto.offset.reset.")


def _yes(v: bool | None) -> str:
    return MISSING if v is None else "yes" if v else "no"


def _lost(g: GroupExposure) -> str:
    return MISSING if g.lost is None else f"{g.lost.records} ({g.lost.from_offset}..{g.lost.to_offset - 1})"


def report_table(r: ExpansionReport) -> Table:
    table = Table(list(COLUMNS))
    for p in r.partitions:
        head = [p.topic, str(p.partition), time_cell(p.creation_ms),
                duration_cell(max(0, r.now_ms - p.creation_ms), resolution=1000), p.source]
        tail = [str(p.log_start), str(p.log_end)]
        if not p.groups:
            table.add(head + [MISSING, MISSING, MISSING] + tail + [MISSING, MISSING, "NO-GROUP"])
        for g in p.groups:
            table.add(head + [g.group, _yes(g.younger_than_group),
                                      MISSING if g.committed is None else str(g.committed)] + tail
                              + [str(g.exposed) if g.status == "EXPOSED" else MISSING, _lost(g), g.status])
    return table


def summary(r: ExpansionReport) -> str:
    """Partitions, group partitions (one per group on a partition) and records, each counted once."""
    def found(status: str) -> str:
        pairs = len(r.found(status))
        groups = f", {pairs} group partition(s)" if pairs != r.partitions_with(status) else ""
        return f"{r.partitions_with(status)}{groups} ({r.records(status)} records)"

    return (f"{len(r.partitions)} partition(s) added within {format_duration_ms(r.within_ms)}; "
            f"exposed: {found('EXPOSED')}; suspected lost: {found('LOST?')}")


def render_report(out: Output, r: ExpansionReport) -> None:
    if out.format == "json":
        out.json(report_document(r))
        return
    out.view(report_table(r))
    if out.format == "table":
        out.prose(summary(r))
    if r.unknown_creation:
        out.note(f"{r.unknown_creation} partition(s) have no recorded creation time (created before "
                 "KIP-1327 was enabled): not checked")
    if r.new_topics:
        out.note(new_topics_note(r))
    if r.undecided:
        out.note(undecided_note(r))
    if r.found("LOST?"):
        out.note(LOST_NOTE)


NAMED = 5           # new topics named in the note


def new_topics_note(r: ExpansionReport) -> str:
    """The topics created within the window: their first partitions are not expansions and are
    not checked; partitions added to them since are (the rows above), and the note says so."""
    added: dict[str, int] = {}
    for p in r.partitions:
        added[p.topic] = added.get(p.topic, 0) + 1

    def named(t) -> str:
        since = f"; {added[t.topic]} added since, checked above" if t.topic in added else ""
        return f"{t.topic} ({t.partitions} first partition(s){since})"

    more = f" and {len(r.new_topics) - NAMED} more" if len(r.new_topics) > NAMED else ""
    return (f"{len(r.new_topics)} topic(s) created within {format_duration_ms(r.within_ms)}: "
            f"{', '.join(named(t) for t in r.new_topics[:NAMED])}{more}; a new topic's first "
            "partitions are not expansions, not checked")


def undecided_note(r: ExpansionReport) -> str:
    """Without the broker's creation times: the partitions kcli cannot tell from young expansions."""
    named = [f"{t}-{p}" for t, p in r.undecided[:NAMED]]
    more = f" and {len(r.undecided) - NAMED} more" if len(r.undecided) > NAMED else ""
    return (f"The broker reports no partition creation times (KIP-1327): {len(r.undecided)} partition(s) "
            f"({', '.join(named)}{more}) may be young expansions, kcli never having seen their topic without "
            f"them and first seen them less than {format_duration_ms(r.within_ms)} ago: checked as such, "
            "shown when exposed (SOURCE unknown); the expansions kcli sees happen from now on are observed")


def report_document(r: ExpansionReport) -> dict:
    def group(g: GroupExposure) -> dict:
        ct = time_field(g.group_creation_ms)
        lost = None
        if g.lost is not None:
            seen = time_field(g.lost.seen_ms)
            lost = {"records": g.lost.records, "fromOffset": g.lost.from_offset,
                    "toOffset": g.lost.to_offset, "seenWithoutCommitMs": seen["ms"],
                    "seenWithoutCommit": seen["iso"]}
        return {"group": g.group, "groupCreationTimeMs": ct["ms"], "groupCreationTime": ct["iso"],
                "youngerThanGroup": g.younger_than_group, "committedOffset": g.committed,
                "exposed": g.exposed, "suspectedLost": lost, "status": g.status}

    def partition(p: YoungPartition) -> dict:
        ct = time_field(p.creation_ms)
        return {"topic": p.topic, "partition": p.partition, "creationTimeMs": ct["ms"],
                "creationTime": ct["iso"], "ageMs": max(0, r.now_ms - p.creation_ms),
                "creationSource": p.source, "createdAfterMs": p.created_after_ms,
                "logStartOffset": p.log_start, "logEndOffset": p.log_end,
                "groups": [group(g) for g in p.groups]}

    def found(status: str) -> dict:
        return {"partitions": r.partitions_with(status), "groupPartitions": len(r.found(status)),
                "records": r.records(status)}

    return json_document("expansions", withinMs=r.within_ms, nowMs=r.now_ms,
                         partitions=[partition(p) for p in r.partitions],
                         exposed=found("EXPOSED"), suspectedLost=found("LOST?"),
                         unknownCreationTime=r.unknown_creation, memoryFile=r.memory_file,
                         undecided=[{"topic": t, "partition": p} for t, p in r.undecided],
                         newTopics=[{"topic": t.topic, "creationTimeMs": t.creation_ms,
                                     "creationTime": time_field(t.creation_ms)["iso"],
                                     "partitions": t.partitions} for t in r.new_topics])
