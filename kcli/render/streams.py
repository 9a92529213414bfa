"""Streams-group views of ``kcli describe groups`` (kafka-streams-groups --describe): state,
members, offsets, in table, plain (kafka-streams-groups' layout for state), JSON (schemas
kcli.streams-group-state, kcli.streams-group-members, kcli.streams-group-offsets, all v1) and CSV.
GROUP-CREATION-TIME (KIP-1282) is ``-`` unless the broker answered StreamsGroupDescribe v2+
with a known time; JSON has it as null then."""

from __future__ import annotations

from kcli.model import GroupOffsetRow, StreamsGroupDescription, StreamsMember
from kcli.render.output import NULL, Output, Table, json_document, time_cell
from kcli.times import time_field

MISSING = NULL


def _v(value) -> str:
    return MISSING if value is None else str(value)


def _coordinator(d: StreamsGroupDescription) -> str:
    c = d.coordinator
    return f"{c.host}:{c.port} ({c.node_id})" if c else MISSING


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
    return ["GROUP", "COORDINATOR (ID)", "ASSIGNOR", "STATE"] + (
        ["GROUP-EPOCH", "TARGET-ASSIGNMENT-EPOCH", "#MEMBERS", "GROUP-CREATION-TIME"] if verbose else ["#MEMBERS"])


def _state_cells(d: StreamsGroupDescription, verbose: bool) -> list[str]:
    cells = [d.group_id, _coordinator(d), d.assignor or MISSING, d.state]
    if verbose:
        return cells + [_v(d.group_epoch), _v(d.target_assignment_epoch), str(len(d.members)),
                        time_cell(d.creation_time_ms)]
    return cells + [str(len(d.members))]


def plain_state(d: StreamsGroupDescription, verbose: bool) -> str:
    """Apache Kafka 4.4's kafka-streams-groups --state layout (group and coordinator padded to
    their width, 15 and 25 at least; ASSIGNOR 15; STATE 25; the epochs 15 and 25), plus
    KIP-1282's GROUP-CREATION-TIME after #MEMBERS (padded to 10) with --verbose."""
    widths = [max(15, len(d.group_id)), max(25, len(_coordinator(d))), 15, 25] + ([15, 25, 10] if verbose else [])

    def line(cells):
        return " ".join(c.ljust(w) for c, w in zip(cells, widths)) + " " + cells[-1]

    return line(_state_header(verbose)) + "\n" + line(_state_cells(d, verbose)) + "\n"


def render_state(out: Output, groups: list[StreamsGroupDescription], verbose: bool) -> None:
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
                         "describeVersion": d.describe_version})
        out.json(json_document("streams-group-state", groups=docs))
        return
    if out.format == "plain":
        for d in groups:
            out.write(plain_state(d, verbose))
        return
    out.table(Table(_state_header(verbose), [_state_cells(d, verbose) for d in groups]))


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


def _offset_cells(r: GroupOffsetRow, verbose: bool) -> list[str]:
    return ([r.group, r.topic, str(r.partition)] + ([_v(r.leader_epoch)] if verbose else [])
            + [_v(r.current), _v(r.log_end), _v(r.lag), _v(r.consumer_id), _v(r.host), _v(r.client_id)])


def _total_lag(rows: list[GroupOffsetRow]) -> int | None:
    lags = [r.lag for r in rows if r.lag is not None]
    return sum(lags) if lags else None


def render_offsets(out: Output, groups: list[tuple[StreamsGroupDescription, list[GroupOffsetRow]]],
                   verbose: bool) -> None:
    """Every partition the group's tasks read or it has committed, with lag; a stopped
    application's committed offsets and lag too (kafka-streams-groups shows none)."""
    if out.format == "json":
        out.json(json_document("streams-group-offsets", groups=[{
            "group": d.group_id, "state": d.state, "totalLag": _total_lag(rows),
            "partitions": [{"topic": r.topic, "partition": r.partition, "currentOffset": r.current,
                            "logEndOffset": r.log_end, "lag": r.lag, "leaderEpoch": r.leader_epoch,
                            "memberId": r.consumer_id, "host": r.host, "clientId": r.client_id}
                           for r in rows]} for d, rows in groups]))
        return
    cols = OFFSET_COLUMNS[:3] + (["LEADER-EPOCH"] if verbose else []) + OFFSET_COLUMNS[3:]
    for d, rows in groups:
        cells = [_offset_cells(r, verbose) for r in rows]
        if out.format == "plain":
            if cells:
                out.write(plain_columns(cols, cells))
            continue
        if cells:
            out.table(Table(list(cols), cells))
        if out.format == "table":
            out.line(f"Total lag of group '{d.group_id}': {_v(_total_lag(rows))}")
