"""Streams-group views of ``kcli describe groups`` (kafka-streams-groups --describe): state,
members, offsets, in table, plain (kafka-streams-groups' layout for state), JSON (schemas
kcli.streams-group-state, kcli.streams-group-members, kcli.streams-group-offsets, all v1) and CSV.
GROUP-CREATION-TIME (KIP-1282) is ``-`` unless the broker answered StreamsGroupDescribe v2+
with a known time; JSON has it as null then."""

from __future__ import annotations

from kcli.model import GroupOffsetRow, StreamsGroupDescription, StreamsMember, TopicSize, max_time_lag
from kcli.render import groups as groups_view
from kcli.render.output import (COORDINATOR_COLUMN, NO_COORDINATOR, NULL, Fields, Output, Table, json_document,
                                size_cell, time_cell)
from kcli.times import time_field

MISSING = NULL


def _v(value) -> str:
    return MISSING if value is None else str(value)


def _coordinator(d: StreamsGroupDescription) -> str:
    c = d.coordinator
    return Fields(f"{c.host}:{c.port} ({c.node_id})", (f"{c.host}:{c.port}", str(c.node_id))) if c else NO_COORDINATOR


def tasks_text(tasks: list[tuple[str, int]]) -> str:
    """``subtopology:p,p;subtopology:p`` (as the consumer views print assignments); ``-`` when none."""
    if not tasks:
        return MISSING
    by_sub: dict[str, list[int]] = {}
    for s, p in tasks:
        by_sub.setdefault(s, []).append(p)
    return ";".join(f"{s}:{','.join(map(str, sorted(ps)))}" for s, ps in sorted(by_sub.items()))


def _tasks_json(tasks: list[tuple[str, int]]) -> list[dict]:
    return [{"subtopology": s, "partition": p} for s, p in tasks]


def plain_columns(cols: list[str], rows: list[list[str]]) -> str:
    """A blank line, then the header and rows, each column as wide as its widest cell."""
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(cols)]
    return "\n" + "".join(" ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() + "\n"
                          for r in [cols, *rows])


# -- --state ----------------------------------------------------------------------------------

def _state_header(verbose: bool) -> list[str]:
    return ["GROUP", COORDINATOR_COLUMN, "ASSIGNOR", "STATE"] + (
        ["GROUP-EPOCH", "TARGET-ASSIGNMENT-EPOCH", "#MEMBERS", "GROUP-CREATION-TIME"] if verbose else ["#MEMBERS"])


def _state_cells(d: StreamsGroupDescription, verbose: bool) -> list[str]:
    cells = [d.group_id, _coordinator(d), d.assignor or MISSING, d.state]
    if verbose:
        return cells + [_v(d.group_epoch), _v(d.target_assignment_epoch), str(len(d.members)),
                        time_cell(d.creation_time_ms)]
    return cells + [str(len(d.members))]


def plain_state(d: StreamsGroupDescription, verbose: bool) -> str:
    """Apache Kafka 4.4's kafka-streams-groups --state layout (group, coordinator and assignor
    padded to their width, 15, 25 and 15 at least, an absent assignor empty; STATE 25; the
    epochs 15 and 25), plus KIP-1282's GROUP-CREATION-TIME after #MEMBERS (padded to 10) with
    --verbose."""
    cells = _state_cells(d, verbose)
    cells[2] = d.assignor or ""
    widths = [max(15, len(d.group_id)), max(25, len(_coordinator(d))), max(15, len(cells[2])), 25] + (
        [15, 25, 10] if verbose else [])

    def line(row):
        return " ".join(c.ljust(w) for c, w in zip(row, widths)) + " " + row[-1]

    return line(_state_header(verbose)) + "\n" + line(cells) + "\n"


INTERNAL_COLUMNS = ["GROUP", "INTERNAL-TOPIC", "PARTITIONS", "RECORDS", "SIZE"]


def render_state(out: Output, groups: list[StreamsGroupDescription], verbose: bool,
                 internal: dict[str, list[TopicSize]] | None = None) -> None:
    """One row per group; ``internal`` (kcli.ops.streams.internal_topic_sizes), each group's
    internal topics with their partitions, records and bytes: JSON's internalTopics and, in a
    table, a second table below (plain keeps kafka-streams-groups' layout, csv its one table)."""
    internal = internal or {}
    if out.format == "json":
        docs = []
        for d in groups:
            c = d.coordinator
            ct = time_field(d.creation_time_ms)
            docs.append({"group": d.group_id, "type": "Streams",
                         "coordinator": None if c is None else {"id": c.node_id, "host": c.host, "port": c.port},
                         "state": d.state, "members": len(d.members), "groupEpoch": d.group_epoch,
                         "targetAssignmentEpoch": d.target_assignment_epoch, "topologyEpoch": d.topology_epoch,
                         "assignor": d.assignor, "groupCreationTimeMs": ct["ms"], "groupCreationTime": ct["iso"],
                         "describeVersion": d.describe_version, "inputTopics": d.input_topics,
                         "internalTopics": [{"topic": t.topic, "partitions": t.partitions, "records": t.records,
                                             "sizeBytes": t.size_bytes}
                                            for t in internal.get(d.group_id, [])]})
        out.json(json_document("streams-group-state", groups=docs))
        return
    if out.format == "plain":
        for d in groups:
            out.write(plain_state(d, verbose))
        return
    out.table(Table(_state_header(verbose), [_state_cells(d, verbose) for d in groups]))
    rows = [[d.group_id, t.topic, _v(t.partitions), _v(t.records),
             _v(None) if t.partitions is None else size_cell(t.size_bytes)]
            for d in groups for t in internal.get(d.group_id, [])]
    if rows and out.format == "table":
        out.line()
        out.table(Table(INTERNAL_COLUMNS, rows))


# -- --members --------------------------------------------------------------------------------

def _members_header(verbose: bool) -> list[str]:
    cols = ["GROUP", "MEMBER", "PROCESS", "CLIENT-ID", "HOST", "ACTIVE-TASKS", "STANDBY-TASKS", "WARMUP-TASKS"]
    if verbose:
        cols += ["MEMBER-EPOCH", "TOPOLOGY-EPOCH", "CLASSIC", "TARGET-ACTIVE-TASKS", "TARGET-STANDBY-TASKS",
                 "TARGET-WARMUP-TASKS"]
    return cols


def _member_cells(d: StreamsGroupDescription, m: StreamsMember, verbose: bool) -> list[str]:
    cells = [d.group_id, m.member_id, m.process_id, m.client_id, m.host,
             tasks_text(m.active), tasks_text(m.standby), tasks_text(m.warmup)]
    if verbose:
        cells += [_v(m.member_epoch), _v(m.topology_epoch), str(m.is_classic).lower(),
                  tasks_text(m.target_active), tasks_text(m.target_standby), tasks_text(m.target_warmup)]
    return cells


def render_members(out: Output, groups: list[StreamsGroupDescription], verbose: bool) -> None:
    if out.format == "json":
        out.json(json_document("streams-group-members", groups=[{
            "group": d.group_id, "state": d.state, "targetAssignmentEpoch": d.target_assignment_epoch,
            "members": [{"memberId": m.member_id, "processId": m.process_id, "clientId": m.client_id,
                         "host": m.host, "instanceId": m.instance_id, "memberEpoch": m.member_epoch,
                         "topologyEpoch": m.topology_epoch, "isClassic": m.is_classic,
                         "activeTasks": _tasks_json(m.active), "standbyTasks": _tasks_json(m.standby),
                         "warmupTasks": _tasks_json(m.warmup),
                         "targetActiveTasks": _tasks_json(m.target_active),
                         "targetStandbyTasks": _tasks_json(m.target_standby),
                         "targetWarmupTasks": _tasks_json(m.target_warmup)} for m in d.members]}
            for d in groups]))
        return
    for d in groups:
        rows = [_member_cells(d, m, verbose) for m in d.members]
        if out.format == "plain":
            out.write(plain_columns(_members_header(verbose), rows))
        else:
            out.table(Table(_members_header(verbose), rows))


# -- offsets ----------------------------------------------------------------------------------

OFFSET_COLUMNS = ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "MEMBER", "HOST",
                  "CLIENT-ID"]


def _offset_cells(r: GroupOffsetRow, verbose: bool, time_lag: bool) -> list[str]:
    return ([r.group, r.topic, str(r.partition)] + ([_v(r.leader_epoch)] if verbose else [])
            + [_v(r.current), _v(r.log_end), _v(r.lag), _v(r.consumer_id), _v(r.host), _v(r.client_id)]
            + (groups_view.time_lag_cells(r) if time_lag else []))


def _total_lag(rows: list[GroupOffsetRow]) -> int | None:
    lags = [r.lag for r in rows if r.lag is not None]
    return sum(lags) if lags else None


def _time_lag_fields(r: GroupOffsetRow) -> dict:
    ts = time_field(r.next_timestamp_ms)
    return {"nextRecordTimestampMs": ts["ms"], "nextRecordTimestamp": ts["iso"], "timeLagMs": r.time_lag_ms,
            "timeLagIsLowerBound": r.time_lag_bound, "timeLagError": r.time_lag_error}


def render_offsets(out: Output, groups: list[tuple[StreamsGroupDescription, list[GroupOffsetRow]]],
                   verbose: bool, time_lag: bool = False) -> None:
    """Every partition the group's tasks read or it has committed, with lag; a stopped
    application's committed offsets and lag too (kafka-streams-groups shows none). ``time_lag``:
    the rows carry their lag in time (kcli.ops.lag), as in the consumer groups' view: two more
    columns, each group's maximum, the JSON fields of kcli.group-offsets."""
    if out.format == "json":
        def group(d, rows):
            doc = {"group": d.group_id, "state": d.state, "totalLag": _total_lag(rows)}
            if time_lag:
                doc["maxTimeLagMs"], doc["maxTimeLagIsLowerBound"] = max_time_lag(rows)
            doc["partitions"] = [{"topic": r.topic, "partition": r.partition, "currentOffset": r.current,
                                  "logEndOffset": r.log_end, "lag": r.lag, "leaderEpoch": r.leader_epoch,
                                  "memberId": r.consumer_id, "host": r.host, "clientId": r.client_id,
                                  **(_time_lag_fields(r) if time_lag else {})} for r in rows]
            return doc
        out.json(json_document("streams-group-offsets", groups=[group(d, rows) for d, rows in groups]))
        return
    cols = (OFFSET_COLUMNS[:3] + (["LEADER-EPOCH"] if verbose else []) + OFFSET_COLUMNS[3:]
            + (groups_view.TIME_LAG_COLUMNS if time_lag else []))
    for d, rows in groups:
        cells = [_offset_cells(r, verbose, time_lag) for r in rows]
        if out.format == "plain":
            if cells:
                out.write(plain_columns(cols, cells))
            continue
        if cells:
            out.table(Table(list(cols), cells))
        if out.format == "table":
            out.line(f"Total lag of group '{d.group_id}': {_v(_total_lag(rows))}")
            if time_lag:
                out.line(f"Max time lag of group '{d.group_id}': {groups_view.max_time_lag_text(rows)}")


# -- kafka-streams-groups' own layouts (the drop-in) ------------------------------------------

def java_notice(d: StreamsGroupDescription) -> str:
    """The line kafka-streams-groups prints on stdout before a Dead or Empty group's view."""
    if d.state == "Dead":
        return f"\nError: Streams group '{d.group_id}' does not exist.\n"
    if d.state == "Empty":
        return f"\nError: Streams group '{d.group_id}' has no active members.\n"
    return ""


def plain_list(groups, show_state: bool) -> str:
    """--list: the ids; with --state, GROUP and STATE (the group padded to 15 at least)."""
    if not show_state:
        return "".join(g.group_id + "\n" for g in groups)
    w = max([15] + [len(g.group_id) for g in groups])
    return "".join(f"{gid.ljust(w)} {state}\n" for gid, state in [("GROUP", "STATE")]
                   + [(g.group_id, g.state) for g in groups])


def plain_task_offsets(d: StreamsGroupDescription, rows: list[tuple[GroupOffsetRow, int | None]],
                       verbose: bool) -> str:
    """--describe [--offsets]: nothing for a group without members (the tool's rule), else
    GROUP TOPIC PARTITION OFFSET-LAG, or with --verbose the committed offset, its leader epoch
    and the log end too (each padded to 15)."""
    if d.state == "Dead" or not d.members:
        return ""
    gw, tw = max(15, len(d.group_id)), max([15] + [len(r.topic) for r, _ in rows])
    if not verbose:
        return "".join(f"{g.ljust(gw)} {t.ljust(tw)} {p.ljust(10)} {lag}\n" for g, t, p, lag in
                       [("GROUP", "TOPIC", "PARTITION", "OFFSET-LAG")]
                       + [(d.group_id, r.topic, str(r.partition), _v(lag)) for r, lag in rows])
    head = [("GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LEADER-EPOCH", "LOG-END-OFFSET", "OFFSET-LAG")]
    body = [(d.group_id, r.topic, str(r.partition), _v(r.current), _v(r.leader_epoch), _v(r.log_end), _v(lag))
            for r, lag in rows]
    return "".join(f"{c[0].ljust(gw)} {c[1].ljust(tw)} {c[2].ljust(10)} "
                   + " ".join(x.ljust(15) for x in c[3:]) + "\n" for c in head + body)


def _java_tasks(kind: str, tasks: list[tuple[str, int]]) -> str:
    if not tasks:
        return ""
    by_sub: dict[str, list[int]] = {}
    for s, p in tasks:
        by_sub.setdefault(s, []).append(p)
    return f"{kind}: " + "".join(f"{s}:[{','.join(map(str, ps))}]; " for s, ps in by_sub.items())


def java_assignments(m: StreamsMember, target: bool) -> str:
    """``ACTIVE: 0:[0,1]; STANDBY: ...``, with --verbose the TARGET- tasks too."""
    text = _java_tasks("ACTIVE", m.active) + _java_tasks("STANDBY", m.standby) + _java_tasks("WARMUP", m.warmup)
    if target:
        text += (_java_tasks("TARGET-ACTIVE", m.target_active) + _java_tasks("TARGET-STANDBY", m.target_standby)
                 + _java_tasks("TARGET-WARMUP", m.target_warmup))
    return text


def plain_java_members(d: StreamsGroupDescription, verbose: bool) -> str:
    """--describe --members: nothing for a group without members; the member, process and client
    id columns as wide as their widest (15 at least), ASSIGNMENTS last; --verbose adds the
    epochs and the member's protocol (TOPOLOGY-EPOCH runs into MEMBER, as in the tool)."""
    if d.state == "Dead" or not d.members:
        return ""
    gw = max(15, len(d.group_id))
    mw = max([15] + [len(m.member_id) for m in d.members])
    pw = max([15] + [len(m.process_id) for m in d.members])
    cw = max([15] + [len(m.client_id) for m in d.members])
    if not verbose:
        rows = [("GROUP", "MEMBER", "PROCESS", "CLIENT-ID", "ASSIGNMENTS")] + [
            (d.group_id, m.member_id, m.process_id, m.client_id, java_assignments(m, False)) for m in d.members]
        return "".join(f"{a.ljust(gw)} {b.ljust(mw)} {c.ljust(pw)} {e.ljust(cw)} {f}\n" for a, b, c, e, f in rows)
    wide = [("GROUP", "TARGET-ASSIGNMENT-EPOCH", "TOPOLOGY-EPOCH", "MEMBER", "MEMBER-PROTOCOL", "MEMBER-EPOCH",
             "PROCESS", "CLIENT-ID", "ASSIGNMENTS")] + [
        (d.group_id, str(d.target_assignment_epoch), str(d.topology_epoch), m.member_id,
         "classic" if m.is_classic else "streams", str(m.member_epoch), m.process_id, m.client_id,
         java_assignments(m, True)) for m in d.members]
    return "".join(f"{r[0].ljust(gw)} {r[1].ljust(25)} {r[2].ljust(15)}{r[3].ljust(mw)} {r[4].ljust(15)} "
                   f"{r[5].ljust(15)} {r[6].ljust(pw)} {r[7].ljust(cw)} {r[8]}\n" for r in wide)


def plain_plan(plans) -> str:
    """--reset-offsets (StreamsGroupCommand.printOffsetsToReset): the header when there is a
    group, columns of 30, 30, 10 and 15, then a newline."""
    line = "\n{:<30} {:<30} {:<10} {:<15}"
    text = line.format("GROUP", "TOPIC", "PARTITION", "NEW-OFFSET") if plans else ""
    text += "".join(line.format(p.group, p.topic, p.partition, _v(p.new)) for plan in plans for p in plan.partitions)
    return text + "\n"


def plain_delete(results: dict[str, str | None]) -> str:
    """--delete: the tool's lines, in its order (default HashMaps of group ids); ``results``
    holds each group's exception text, or None when it was deleted."""
    from kcli import javaorder

    ok = javaorder.deleted_groups([g for g, e in results.items() if e is None])
    failed = javaorder.deleted_groups([g for g, e in results.items() if e is not None])
    quoted = "', '".join(ok)
    if not failed:
        return f"Deletion of requested streams groups ('{quoted}') was successful.\n"
    text = "\nError: Deletion of some streams groups failed:\n"
    text += "".join(f"* Group '{g}' could not be deleted due to: {results[g]}\n" for g in failed)
    if ok:
        text += f"\nThese streams groups were deleted successfully: '{quoted}'.\n"
    return text


def plain_internal_deletion(deleted: list[str], failed: dict[str, str]) -> str:
    """--delete --delete-all-internal-topics: the outcome for the deleted groups that had
    internal topics (``failed``: the groups whose topics were not all deleted, with why)."""
    if not failed:
        quoted = "', '".join(deleted)
        return f"Deletion of associated internal topics of the streams groups ('{quoted}') was successful.\n"
    return "Deletion of some associated internal topics failed:\n" + "".join(
        f"* Internal topics of the streams group '{g}' could not be deleted due to: {why}\n"
        for g, why in failed.items())
