"""Consumer-group views: kafka-consumer-groups' layouts (plain, exact padding, as Apache Kafka's
tools/src/main/java/org/apache/kafka/tools/consumer/group/ConsumerGroupCommand.java prints them),
tables, JSON (schemas kcli.group-list, kcli.group-offsets, kcli.group-members, kcli.group-state,
kcli.reset-plan, kcli.group-delete, kcli.offset-delete, all v1)."""

from __future__ import annotations

import functools

from kcli import javaorder
from kcli.model import (BrokerError, GroupDescription, GroupListing, GroupMember, GroupOffsetRow, GroupPlan,
                        max_time_lag)
from kcli.datatypes import replace
from kcli.render import notices
from kcli.render.javatext import ERRORS, exception_text
from kcli.render.output import (COORDINATOR_COLUMN, NO_COORDINATOR, NULL, Cell, Fields, Output, Rows, Table,
                                duration_cell, duration_column, json_document, time_cell)
from kcli.times import format_duration_rounded, format_ms, time_field

MISSING = NULL          # "-"; an empty cell in CSV


def _v(value) -> str:
    return MISSING if value is None else str(value)


def _pad(value: str, width: int) -> str:
    return value.ljust(width)


# -- list -------------------------------------------------------------------------------------

def render_list(out: Output, groups: list[GroupListing], show_state: bool, show_type: bool) -> None:
    """Plain keeps kafka-consumer-groups' order; the other formats sort by group id."""
    if out.format != "plain":
        groups = sorted(groups, key=lambda g: g.group_id)
    if out.format == "json":
        out.json(json_document("group-list", groups=[
            {"group": g.group_id, "type": g.type, "state": g.state} for g in groups]))
        return
    if out.format == "plain":
        if not (show_state or show_type):
            out.write_lines(g.group_id + "\n" for g in groups)
            return
        width = max([15] + [len(g.group_id) for g in groups]) + 10
        def line(gid, gtype, state):
            text = _pad(gid, width)
            if show_type:
                text += " " + _pad(gtype, 20)
            if show_state:
                text += " " + _pad(state, 20)
            return text
        out.write_lines(line(*cells) + "\n" for cells in [("GROUP", "TYPE", "STATE")]
                        + [(g.group_id, g.type, g.state) for g in groups])
        return
    out.table(Table(["GROUP", "TYPE", "STATE"], [[g.group_id, g.type, g.state] for g in groups]))


# -- describe --offsets -----------------------------------------------------------------------

TIME_LAG_COLUMNS = ["NEXT-RECORD-TIME", duration_column("TIME-LAG")]


def time_lag_cells(r: GroupOffsetRow) -> list[str]:
    """NEXT-RECORD-TIME and TIME-LAG: ``-`` where unknown or without a commit; a bound (the next
    record lay beyond the bytes read) as ``≤time`` and ``≥lag``; a next record stamped after now
    as its negative lag (``-5m``), never ``0s``, which means caught up. Over a minute the lag is
    rounded (``1h39m``); CSV has its milliseconds (a bound's: JSON says it is one)."""
    if r.time_lag_ms is None:
        return [MISSING, MISSING]
    mark = ("≤", "≥") if r.time_lag_bound else ("", "")
    return [time_cell(r.next_timestamp_ms, mark[0]), duration_cell(r.time_lag_ms, mark[1])]


def max_time_lag_text(rows: list[GroupOffsetRow]) -> str:
    top, bound = max_time_lag(rows)
    return MISSING if top is None else ("≥" if bound else "") + format_duration_rounded(top)


def plain_offsets(rows: list[GroupOffsetRow], verbose: bool, time_lag: bool = False) -> str:
    """kafka-consumer-groups' layout; ``time_lag`` appends NEXT-RECORD-TIME and TIME-LAG after
    CLIENT-ID (which is then padded), so the tool's columns keep their places."""
    gw = max([15] + [len(r.group) for r in rows])
    tw = max([15] + [len(r.topic) for r in rows])
    cw = max([15] + [len(_v(r.consumer_id)) for r in rows])
    hw = max([15] + [len(_v(r.host)) for r in rows])
    lw = max([15] + [len(_v(r.client_id)) for r in rows])

    def line(cells: list[str]) -> str:
        widths = [gw, tw, 10] + ([15] if verbose else []) + [15, 15, 15, cw, hw] + ([lw, 25] if time_lag else [])
        return " ".join(_pad(c, w) for c, w in zip(cells, widths)) + " " + cells[-1]

    header = ["GROUP", "TOPIC", "PARTITION"] + (["LEADER-EPOCH"] if verbose else []) + [
        "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"]
    header += TIME_LAG_COLUMNS if time_lag else []
    lines = [line(header)]
    for r in rows:
        lines.append(line([r.group, r.topic, str(r.partition)] + ([_v(r.leader_epoch)] if verbose else [])
                          + [_v(r.current), _v(r.log_end), _v(r.lag), _v(r.consumer_id), _v(r.host),
                             _v(r.client_id)] + (time_lag_cells(r) if time_lag else [])))
    return "\n" + "\n".join(lines) + "\n"


def render_offsets(out: Output, groups: list[tuple[GroupDescription, list[GroupOffsetRow]]],
                   verbose: bool, time_lag: bool = False) -> None:
    """``time_lag``: the rows carry their lag in time (kcli.ops.lag): two more columns and, in
    the table, each group's maximum; JSON gains the fields (schema kcli.group-offsets/v1, fields
    added)."""
    if out.format == "json":
        def item(r):
            doc = {"topic": r.topic, "partition": r.partition, "currentOffset": r.current,
                   "logEndOffset": r.log_end, "lag": r.lag, "leaderEpoch": r.leader_epoch,
                   "consumerId": r.consumer_id, "host": r.host, "clientId": r.client_id}
            if time_lag:
                ts = time_field(r.next_timestamp_ms)
                doc.update(nextRecordTimestampMs=ts["ms"], nextRecordTimestamp=ts["iso"],
                           timeLagMs=r.time_lag_ms, timeLagIsLowerBound=r.time_lag_bound,
                           timeLagError=r.time_lag_error)
            return doc

        def group(d, rows):
            doc = {"group": d.group_id, "state": d.state, "totalLag": _total_lag(rows)}
            if time_lag:
                doc["maxTimeLagMs"], doc["maxTimeLagIsLowerBound"] = max_time_lag(rows)
            doc["partitions"] = Rows(lambda: map(item, rows))
            return doc
        out.json(json_document("group-offsets", groups=[group(d, rows) for d, rows in groups]))
        return
    if out.format == "plain":
        out.write_lines(plain_offsets(rows, verbose, time_lag) for _, rows in groups if rows)
        return
    columns = ["GROUP", "TOPIC", "PARTITION"] + (["LEADER-EPOCH"] if verbose else []) + [
        "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"]
    columns += TIME_LAG_COLUMNS if time_lag else []
    def cells(rows):
        for r in rows:
            yield ([r.group, r.topic, str(r.partition)] + ([_v(r.leader_epoch)] if verbose else [])
                   + [_v(r.current), _v(r.log_end), _v(r.lag), _v(r.consumer_id), _v(r.host),
                      _v(r.client_id)] + (time_lag_cells(r) if time_lag else []))

    for d, rows in groups:
        if rows:
            out.table(Table(list(columns), Rows(functools.partial(cells, rows))))
        if out.format == "table":
            out.line(f"Total lag of group '{d.group_id}': {_v(_total_lag(rows))}")
            if time_lag:
                out.line(f"Max time lag of group '{d.group_id}': {max_time_lag_text(rows)}")


def _total_lag(rows: list[GroupOffsetRow]) -> int | None:
    lags = [r.lag for r in rows if r.lag is not None]
    return sum(lags) if lags else None


# -- describe --members -----------------------------------------------------------------------

def assignment_text(tps: list[tuple[str, int]] | None) -> str:
    """``topic:p,p;topic2:p`` (partitions numeric, topics as strings); ``-`` when empty."""
    if not tps:
        return MISSING
    by_topic: dict[str, list[int]] = {}
    for t, p in tps:
        by_topic.setdefault(t, []).append(p)
    return ";".join(sorted(f"{t}:{','.join(str(p) for p in sorted(ps))}" for t, ps in by_topic.items()))


def _member_cells(d: GroupDescription, m: GroupMember, verbose: bool, with_instance: bool,
                  upgraded: bool) -> list[str]:
    cells = [d.group_id, m.member_id] + ([m.group_instance_id or ""] if with_instance else []) + [
        m.host, m.client_id, str(len(m.assignment))]
    if verbose:
        consumer = d.type == "Consumer"
        cells += [_v(m.member_epoch) if consumer else MISSING, assignment_text(m.assignment),
                  _v(d.target_assignment_epoch) if consumer else MISSING,
                  assignment_text(m.target_assignment) if consumer else MISSING]
        if upgraded:
            cells.append(MISSING if m.upgraded is None else str(m.upgraded).lower())
    return cells


def _mixed(d: GroupDescription) -> bool:
    return {m.upgraded for m in d.members} >= {True, False}


def plain_members(d: GroupDescription, verbose: bool) -> str:
    """Header line starts with a newline; every line ends with one; padded cells (ConsumerGroupCommand.printMembers)."""
    return _plain_members(d, verbose) if d.members else _memberless(verbose)


@functools.lru_cache(maxsize=2)
def _memberless(verbose: bool) -> str:
    """A group without members: the header alone, the same for every such group."""
    return _plain_members(GroupDescription("", "", "", "", None), verbose)


def _plain_members(d: GroupDescription, verbose: bool) -> str:
    with_instance = any(m.group_instance_id for m in d.members)
    upgraded = verbose and _mixed(d)
    header = ["GROUP", "CONSUMER-ID"] + (["GROUP-INSTANCE-ID"] if with_instance else []) + [
        "HOST", "CLIENT-ID", "#PARTITIONS"]
    if verbose:
        header += ["CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT"]
        if upgraded:
            header.append("UPGRADED")
    rows = [_member_cells(d, m, verbose, with_instance, upgraded) for m in d.members]
    # the group's width grows in the tool's loop over members: 15 for a group without any
    widths = [max([15] + [len(d.group_id) for _ in d.members[:1]]),
              max([15] + [len(m.member_id) for m in d.members])]
    if with_instance:
        widths.append(max([17] + [len(m.group_instance_id or "") for m in d.members]))
    widths += [max([15] + [len(m.host) for m in d.members]),
               max([15] + [len(m.client_id) for m in d.members]), 15]
    if verbose:
        current, target = len(widths) + 1, len(widths) + 3      # the two assignment cells
        widths += [15, max([20] + [len(r[current]) for r in rows]), 15,
                   max([20] + [len(r[target]) for r in rows])]

    line = functools.partial(_member_line, widths=tuple(widths), verbose=verbose, upgraded=upgraded)
    return "\n" + _member_line_cached(tuple(header), tuple(widths), verbose, upgraded) + "".join(line(r) for r in rows)


def _member_line(cells, widths: tuple[int, ...], verbose: bool, upgraded: bool) -> str:
    text = "".join(_pad(c, w) + " " for c, w in zip(cells, widths))
    if verbose:
        text = text[:-1]                       # the verbose format ends with the padded TA cell
    if upgraded:
        text += " " + cells[-1]
    return text + "\n"


# a header line is the same for most groups (the widths a memberless group gets): made once each
_member_line_cached = functools.lru_cache(maxsize=64)(_member_line)


def render_members(out: Output, groups: list[GroupDescription], verbose: bool) -> None:
    if out.format == "json":
        out.json(json_document("group-members", groups=[{
            "group": d.group_id, "state": d.state, "type": d.type,
            "targetAssignmentEpoch": d.target_assignment_epoch,
            "members": [{"consumerId": m.member_id, "groupInstanceId": m.group_instance_id,
                         "host": m.host, "clientId": m.client_id, "partitions": len(m.assignment),
                         "memberEpoch": m.member_epoch,
                         "assignment": [{"topic": t, "partition": p} for t, p in m.assignment],
                         "targetAssignment": None if m.target_assignment is None else
                         [{"topic": t, "partition": p} for t, p in m.target_assignment],
                         "upgraded": m.upgraded} for m in d.members]} for d in groups]))
        return
    if out.format == "plain":
        out.write_lines(plain_members(d, verbose) for d in groups)
        return
    for d in groups:
        with_instance = any(m.group_instance_id for m in d.members)
        upgraded = verbose and _mixed(d)
        cols = ["GROUP", "CONSUMER-ID"] + (["GROUP-INSTANCE-ID"] if with_instance else []) + [
            "HOST", "CLIENT-ID", "#PARTITIONS"]
        if verbose:
            cols += ["CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT"]
            cols += ["UPGRADED"] if upgraded else []
        out.table(Table(cols, [_member_cells(d, m, verbose, with_instance, upgraded) for m in d.members]))


# -- describe --state -------------------------------------------------------------------------

def _coordinator(d: GroupDescription) -> str:
    c = d.coordinator
    return Fields(f"{c.host}:{c.port}  ({c.node_id})", (f"{c.host}:{c.port}", str(c.node_id))) if c else NO_COORDINATOR


def _state_cells(d: GroupDescription, verbose: bool) -> list[str]:
    cells = [d.group_id, _coordinator(d), d.assignor or MISSING, d.state]
    if verbose:
        cells += [_v(d.group_epoch), _v(d.target_assignment_epoch)]
    cells.append(str(len(d.members)))
    if verbose:
        cells.append(time_cell(d.creation_time_ms))       # KIP-1282; "-" unknown or not offered
    return cells


STATE_HEADER = ("GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS")
STATE_HEADER_VERBOSE = ("GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "GROUP-EPOCH",
                        "TARGET-ASSIGNMENT-EPOCH", "#MEMBERS", "GROUP-CREATION-TIME")


def plain_state(d: GroupDescription, verbose: bool) -> str:
    cells = _state_cells(d, verbose)
    widths = (max(15, len(d.group_id)), max(25, len(cells[1])), 20, 20) + ((15, 25, 10) if verbose else ())
    # the line after its group id is the same for most groups (one coordinator, one state):
    # made once each (10k groups' lines in a little over half the time)
    return ("\n" + _state_header(widths, verbose) + "\n" + _pad(cells[0], widths[0]) + " "
            + _state_tail(tuple(cells[1:]), widths[1:]) + "\n")


def plain_states(groups: list[GroupDescription], verbose: bool):
    """``plain_state`` of each group in turn. Without --verbose a group's line after its id
    depends only on its coordinator, strategy, state and member count, the same for most of
    10k groups: each such rest, and each header, is made once (10k groups' --state lines in
    about half the time of ``plain_state`` each)."""
    if verbose:
        yield from (plain_state(d, verbose) for d in groups)
        return
    rests: dict[tuple, tuple[int, str]] = {}
    headers: dict[tuple[int, int], str] = {}
    for d in groups:        # the coordinators are alive throughout: their ids name them
        key = (id(d.coordinator), d.assignor, d.state, len(d.members))
        rest = rests.get(key)
        if rest is None:
            cells = _state_cells(d, False)
            width = max(25, len(cells[1]))
            rest = rests[key] = (width, _state_line(cells[1:], (width, 20, 20)))
        gid = d.group_id
        widths = (max(15, len(gid)), rest[0])
        header = headers.get(widths)
        if header is None:
            header = headers[widths] = "\n" + _state_header((*widths, 20, 20), False) + "\n"
        yield header + gid.ljust(widths[0]) + " " + rest[1] + "\n"


def _state_line(cells, widths: tuple[int, ...]) -> str:
    return "".join(_pad(c, w) + " " for c, w in zip(cells, widths)) + cells[-1]


@functools.lru_cache(maxsize=256)
def _state_tail(cells: tuple[str, ...], widths: tuple[int, ...]) -> str:
    return _state_line(cells, widths)


@functools.lru_cache(maxsize=64)
def _state_header(widths: tuple[int, ...], verbose: bool) -> str:
    """The same for most groups (their ids and coordinators are as wide): made once each."""
    return _state_line(STATE_HEADER_VERBOSE if verbose else STATE_HEADER, widths)


def render_state(out: Output, groups: list[GroupDescription], verbose: bool) -> None:
    if out.format == "json":
        docs = []
        for d in groups:
            c = d.coordinator
            doc = {"group": d.group_id, "type": d.type,
                   "coordinator": None if c is None else {"id": c.node_id, "host": c.host, "port": c.port},
                   "assignmentStrategy": d.assignor or None, "state": d.state, "members": len(d.members),
                   "groupEpoch": d.group_epoch, "targetAssignmentEpoch": d.target_assignment_epoch}
            ct = time_field(d.creation_time_ms)
            doc["groupCreationTimeMs"], doc["groupCreationTime"] = ct["ms"], ct["iso"]
            docs.append(doc)
        out.json(json_document("group-state", groups=docs))
        return
    if out.format == "plain":
        out.write_lines(plain_states(groups, verbose))
        return
    cols = ["GROUP", COORDINATOR_COLUMN, "ASSIGNMENT-STRATEGY", "STATE"]
    cols += ["GROUP-EPOCH", "TARGET-ASSIGNMENT-EPOCH", "#MEMBERS", "GROUP-CREATION-TIME"] if verbose else ["#MEMBERS"]
    out.table(Table(cols, [_state_cells(d, verbose) for d in groups]))


# -- reset-offsets ----------------------------------------------------------------------------

def plain_plan(plans: list[GroupPlan]) -> str:
    """Kafka 4.2+ layout (OffsetsUtils.printOffsetsToReset): header only when there is at least
    one group; final newline."""
    if not plans:
        return "\n"
    rows = [p for plan in plans for p in plan.partitions]
    gw = max([15] + [len(p.group) for p in plans])
    tw = max([15] + [len(r.topic) for r in rows])
    lines = [f"{_pad('GROUP', gw)} {_pad('TOPIC', tw)} {_pad('PARTITION', 10)} NEW-OFFSET"]
    lines += [f"{_pad(r.group, gw)} {_pad(r.topic, tw)} {_pad(str(r.partition), 10)} {_v(r.new)}" for r in rows]
    return "\n" + "\n".join(lines) + "\n"


def render_plan(out: Output, plans: list[GroupPlan], *, time_scenario: bool, with_rule: bool,
                scenario: str, executed: bool, rollback_file: str | None) -> None:
    """Plain follows kafka-consumer-groups' order; the other formats sort by group, topic and
    partition."""
    if out.format == "plain":
        out.write(plain_plan(javaorder.reset_plans(plans)))
        return
    plans = [replace(plan, partitions=sorted(plan.partitions, key=lambda p: (p.topic, p.partition)))
             for plan in sorted(plans, key=lambda plan: plan.group)]
    rows = [p for plan in plans for p in plan.partitions]
    start_time = scenario == "to-start-time"     # each group's own time: its creation time (KIP-1282)
    if out.format == "json":
        def item(p):
            doc = {"topic": p.topic, "partition": p.partition, "currentOffset": p.current,
                   "newOffset": p.new, "delta": p.delta, "skippedUnread": p.skipped,
                   "replayed": p.replayed,
                   "logStartOffset": p.log_start, "logEndOffset": p.log_end}
            if time_scenario:
                ts = time_field(p.timestamp_ms)
                doc["recordTimestampMs"], doc["recordTimestamp"] = ts["ms"], ts["iso"]
            if with_rule:
                doc["rule"], doc["age"] = p.rule, age_json(p)
            return doc

        def group(plan):
            doc = {"group": plan.group}
            if start_time:
                ts = time_field(plan.reset_to_ms)
                doc["resetToTimestampMs"], doc["resetToTimestamp"] = ts["ms"], ts["iso"]
            doc.update(partitions=Rows(functools.partial(map, item, plan.partitions)),
                       warnings=[notices.text(w) for w in plan.warnings])
            return doc
        out.json(json_document("reset-plan", scenario=scenario, executed=executed,
                               rollbackFile=rollback_file, groups=[group(plan) for plan in plans]))
        return
    if start_time:
        out.notes(f"Group {plan.group}: reset to its creation time, {format_ms(plan.reset_to_ms)}"
                  for plan in plans if plan.reset_to_ms is not None)
    skips = any(p.skipped for p in rows)
    cols = ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "NEW-OFFSET", "DELTA"]
    cols += ["SKIPS-UNREAD"] if skips else []
    cols += ["LOG-START", "LOG-END"]
    cols += ["RECORD-TIMESTAMP"] if time_scenario else []
    cols += ["RULE"] if with_rule else []
    def cells():
        for p in rows:
            delta = p.delta
            row = [p.group, p.topic, str(p.partition), _v(p.current), DELETES if p.new is None else str(p.new),
                   MISSING if delta is None else f"{delta:+d}"]
            row += [str(p.skipped) if p.skipped else ""] if skips else []
            row += [str(p.log_start), str(p.log_end)]
            row += [time_cell(p.timestamp_ms)] if time_scenario else []
            row += [p.rule or ""] if with_rule else []
            yield row
    out.table(Table(cols, Rows(cells)))


def committed_line(partitions: int, groups: int) -> str:
    """--execute's count of what it applied (``kcli.ops.resets.execution.committed_counts``)."""
    return (f"Committed {partitions} partition{'' if partitions == 1 else 's'} of {groups} "
            f"group{'' if groups == 1 else 's'}")


DELETES = Cell("(delete)", "")      # a restore's partition without an offset before: its commit is deleted


def age_json(p) -> dict:
    """--max-age: which source decided (broker, observed, record bound, unknown) and the bounds."""
    b = p.age
    return {"source": p.age_source,
            "createdAfterMs": b.created_after_ms if b else None, "createdAfterSource": b.after_source if b else None,
            "createdBeforeMs": b.created_before_ms if b else None,
            "createdBeforeSource": b.before_source if b else None,
            "minAgeMs": b.min_age_ms if b else None, "maxAgeMs": b.max_age_ms if b else None}


def render_export(out: Output, plans: list[GroupPlan], with_group: bool) -> None:
    """--export: kafka-consumer-groups' CSV, rows in its order, then the empty line its println
    adds."""
    from kcli.offsets.csvfile import export_csv     # --export only (the other views' start-up)

    out.write(export_csv(javaorder.reset_plans(plans), with_group) + "\n")


# -- delete -----------------------------------------------------------------------------------

def render_delete_groups(out: Output, results: dict[str, BrokerError | None]) -> None:
    """Plain is kafka-consumer-groups' text: its order and its exception names."""
    if out.format == "json":
        out.json(json_document("group-delete", groups=[
            {"group": g, "deleted": e is None, "error": None if e is None else e.name}
            for g, e in sorted(results.items())]))
        return
    if out.format == "table":
        out.table(Table(["GROUP", "RESULT"], [[g, "Deleted" if e is None else f"Error: {e.message}"]
                                              for g, e in sorted(results.items())]))
        return
    ok = javaorder.deleted_groups([g for g, e in results.items() if e is None])
    failed = javaorder.deleted_groups([g for g, e in results.items() if e is not None])
    quoted = ", ".join(f"'{g}'" for g in ok)
    if not failed:
        out.line(f"Deletion of requested consumer groups ({quoted}) was successful.")
        return
    out.line("\nError: Deletion of some consumer groups failed:")
    for g in failed:
        if (e := results[g]) is not None:
            out.line(f"* Group '{g}' could not be deleted due to: {exception_text(e.code, e.message)}")
    if ok:
        out.line(f"\nThese consumer groups were deleted successfully: {quoted}")


_GROUP_LEVEL = ("INVALID_GROUP_ID", "GROUP_ID_NOT_FOUND", "GROUP_AUTHORIZATION_FAILED", "NON_EMPTY_GROUP")
_PARTITION_LEVEL = ("GROUP_SUBSCRIBED_TO_TOPIC", "TOPIC_AUTHORIZATION_FAILED", "UNKNOWN_TOPIC_OR_PARTITION")


def delete_offsets_summary(group: str, group_error: BrokerError | None, rows) -> tuple[bool, str]:
    """The Java tool's top line (4.1+, ConsumerGroupCommand.deleteOffsets): (an error?, the line)."""
    name = group_error.name if group_error else None
    if group_error is not None and name in _GROUP_LEVEL:
        return True, f"Error: {ERRORS[group_error.code][2] if group_error.code in ERRORS else group_error.message}"
    if name in _PARTITION_LEVEL or (name is None and any(e for _, _, e in rows)):
        return True, "Error: Encountered some partition-level error, see the follow-up details."
    if name:
        return True, f"Error: Encountered some unknown error: {name}"
    return False, f"Request succeeded for deleting offsets from group {group}."


def render_delete_offsets(out: Output, group: str, group_error: BrokerError | None, rows) -> None:
    if out.format == "json":
        out.json(json_document("offset-delete", group=group,
                               error=None if group_error is None else group_error.name, partitions=[
                                   {"topic": t, "partition": None if p < 0 else p,
                                    "error": None if e is None else e.name} for t, p, e in rows]))
        return
    failed, summary = delete_offsets_summary(group, group_error, rows)
    if out.format == "table":
        out.line(summary)
        out.table(Table(["TOPIC", "PARTITION", "STATUS"], [
            [t, MISSING if p < 0 else str(p), "Successful" if e is None else f"Error: {e.message}"]
            for t, p, e in rows]))
        return
    status = [(t, MISSING if p < 0 else str(p),
               "Successful" if e is None else f"Error: {exception_text(e.code, e.message)}")
              for t, p, e in rows]
    out.line("\n" + summary if failed else summary)      # the tool prints an error after an empty line
    tw = max([15] + [len(t) for t, _, _ in rows])
    out.write("".join(f"\n{_pad(t, tw)} {_pad(p, 10)} {_pad(s, 15)}"
                      for t, p, s in [("TOPIC", "PARTITION", "STATUS")] + status) + "\n")
