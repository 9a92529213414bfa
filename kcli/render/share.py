"""Share-group views (KIP-932): kafka-share-groups' plain layouts (--list, --describe with
--offsets, --members or --state, --delete, --delete-offsets), byte for byte, and ``kcli describe
groups``' views of share groups in every format (JSON schemas kcli.share-group-offsets,
kcli.share-group-members, kcli.share-group-state, all v1)."""

from __future__ import annotations

from kcli.model import GroupListing, ShareGroupDescription, ShareMember, ShareOffset

MISSING = "-"


def _v(value) -> str:
    return MISSING if value is None else str(value)


def plain_list(groups: list[GroupListing], show_state: bool) -> str:
    """--list: the ids; with --state, GROUP and STATE (the group padded to 15 at least)."""
    if not show_state:
        return "".join(g.group_id + "\n" for g in groups)
    w = max([15] + [len(g.group_id) for g in groups])
    return "".join(f"{gid.ljust(w)} {state}\n" for gid, state in [("GROUP", "STATE")]
                   + [(g.group_id, g.state) for g in groups])


def plain_offsets(group: str, rows: list[ShareOffset], verbose: bool) -> str:
    """--describe [--offsets]: GROUP TOPIC PARTITION [LEADER-EPOCH] START-OFFSET LAG, each line
    after a newline, or the tool's line for a group without share-partitions."""
    if not rows:
        return f"\nShare group '{group}' has no offset information.\n"
    gw, tw = max(15, len(group)), max([15] + [len(r.topic) for r in rows])
    head = ["GROUP", "TOPIC", "PARTITION", *(["LEADER-EPOCH"] if verbose else []), "START-OFFSET", "LAG"]
    lines = [head] + [[group, r.topic, str(r.partition), *([_v(r.leader_epoch)] if verbose else []),
                       _v(r.start_offset), _v(r.lag)] for r in rows]
    widths = [gw, tw, 10, *([13] if verbose else []), 13]
    return "".join("\n" + " ".join(c.ljust(w) for c, w in zip(line, widths)) + " " + line[-1]
                   for line in lines) + "\n"


def empty_notice(d: ShareGroupDescription) -> tuple[str, str] | None:
    """maybePrintEmptyGroupState: (stream, text) for a Dead or Empty group, else None."""
    if d.state == "Dead":
        return "stdout", f"\nError: Share group '{d.group_id}' does not exist.\n"
    if d.state == "Empty":
        return "stderr", f"\nShare group '{d.group_id}' has no active members.\n"
    return None


def coordinator_text(d: ShareGroupDescription) -> str:
    c = d.coordinator
    return f"{c.host}:{c.port}  ({c.node_id})" if c else ":-1  (-1)"


def plain_state(d: ShareGroupDescription, verbose: bool) -> str:
    """--describe --state: GROUP COORDINATOR (ID) STATE [GROUP-EPOCH ASSIGNMENT-EPOCH] #MEMBERS."""
    coordinator = coordinator_text(d)
    gw, cw = max(15, len(d.group_id)), max(25, len(coordinator))
    if verbose:
        lines = [["GROUP", "COORDINATOR (ID)", "STATE", "GROUP-EPOCH", "ASSIGNMENT-EPOCH", "#MEMBERS"],
                 [d.group_id, coordinator, d.state, str(d.group_epoch), str(d.assignment_epoch), str(len(d.members))]]
        widths = [gw, cw, 15, 12, 17]
    else:
        lines = [["GROUP", "COORDINATOR (ID)", "STATE", "#MEMBERS"],
                 [d.group_id, coordinator, d.state, str(len(d.members))]]
        widths = [gw, cw, 15]
    return "".join("\n" + " ".join(c.ljust(w) for c, w in zip(line, widths)) + " " + line[-1]
                   for line in lines) + "\n"


def assignment_text(m: ShareMember) -> str:
    """``topic:p,p;topic:p``, topics and partitions sorted; empty when none (the tool's)."""
    by_topic: dict[str, list[int]] = {}
    for t, p in m.assignment:
        by_topic.setdefault(t, []).append(p)
    return ";".join(sorted(f"{t}:" + ",".join(str(p) for p in sorted(ps)) for t, ps in by_topic.items()))


def plain_members(d: ShareGroupDescription, verbose: bool) -> str:
    """--describe --members: GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS [MEMBER-EPOCH]
    ASSIGNMENT, members sorted by id; nothing for a group without members."""
    if d.state == "Dead" or not d.members:
        return ""
    members = sorted(d.members, key=lambda m: m.member_id)
    gw = max(15, len(d.group_id))
    iw = max([15] + [len(m.member_id) for m in members])
    hw = max([15] + [len(m.host) for m in members])
    cw = max([15] + [len(m.client_id) for m in members])
    head = ["GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS", *(["MEMBER-EPOCH"] if verbose else []),
            "ASSIGNMENT"]
    lines = [head] + [[d.group_id, m.member_id, m.host, m.client_id, str(len(m.assignment)),
                       *([str(m.member_epoch)] if verbose else []), assignment_text(m)] for m in members]
    widths = [gw, iw, hw, cw, 12, *([13] if verbose else [])]
    return "".join("\n" + " ".join(c.ljust(w) for c, w in zip(line, widths)) + " " + line[-1]
                   for line in lines) + "\n"


def plain_delete(deleted: list[str], failed: dict[str, str]) -> str:
    """--delete: the tool's success line, or its error and one line per group not deleted
    (``failed``: the exception text; both in the tool's HashMap order), then the deleted ones."""
    from kcli import javaorder

    if not failed:
        return ("Deletion of requested share groups (" + ", ".join(f"'{g}'" for g in javaorder.strings(deleted))
                + ") was successful.\n")
    out = "\nError: Deletion of some share groups failed:\n" + "".join(
        f"* Group '{g}' could not be deleted due to: {failed[g]}\n" for g in javaorder.strings(list(failed)))
    if deleted:
        out += "\nThese share groups were deleted successfully: " + ", ".join(
            f"'{g}'" for g in javaorder.strings(deleted)) + "\n"
    return out


def plain_delete_offsets(top: str | None, per: dict[str, str | None]) -> str:
    """--delete-offsets: the top-level error line (``top``: the tool's words, None for none),
    then TOPIC STATUS per topic, sorted."""
    out = f"\nError: {top}\n" if top is not None else ""
    if per:
        tw = max([15] + [len(t) for t in per])
        out += "".join(f"\n{t.ljust(tw)} {s}" for t, s in [("TOPIC", "STATUS")] + [
            (t, "Successful" if per[t] is None else f"Error: {per[t]}") for t in sorted(per)])
    return out + "\n"


# -- kcli describe groups (native): table, json, csv; plain is the tool's layout ----------------
def render_offsets(out, views, verbose: bool, time_lag: bool = False) -> None:
    """Share groups' offsets view: START-OFFSET (the share-partition start offset), LOG-END-OFFSET,
    LAG (the broker's share-partition lag: records not yet acknowledged, KIP-1226) and, with
    ``time_lag``, the time of the record at the start offset and now minus it (JSON schema
    kcli.share-group-offsets/v1). ``views``: kcli.ops.share.offset_views."""
    from kcli.render.groups import TIME_LAG_COLUMNS, time_lag_cells
    from kcli.render.output import Table, json_document
    from kcli.times import time_field

    if out.format == "json":
        def item(s, r):
            doc = {"topic": r.topic, "partition": r.partition, "startOffset": s.start_offset,
                   "logEndOffset": r.log_end, "lag": s.lag, "leaderEpoch": s.leader_epoch,
                   "memberId": r.consumer_id, "host": r.host, "clientId": r.client_id}
            if time_lag:
                ts = time_field(r.next_timestamp_ms)
                doc.update(startRecordTimestampMs=ts["ms"], startRecordTimestamp=ts["iso"],
                           timeLagMs=r.time_lag_ms, timeLagIsLowerBound=r.time_lag_bound,
                           timeLagError=r.time_lag_error)
            return doc
        out.json(json_document("share-group-offsets", groups=[
            {"group": d.group_id, "state": d.state,
             "totalLag": sum(s.lag for s, _ in pairs) if pairs and all(s.lag is not None for s, _ in pairs) else None,
             "partitions": [item(s, r) for s, r in pairs]} for d, pairs in views]))
        return
    if out.format == "plain" and not time_lag:
        out.write("".join(plain_offsets(d.group_id, [s for s, _ in pairs], verbose) for d, pairs in views))
        return
    columns = ["GROUP", "TOPIC", "PARTITION"] + (["LEADER-EPOCH"] if verbose else []) + [
        "START-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"]
    columns += ["START-RECORD-TIME", TIME_LAG_COLUMNS[1]] if time_lag else []
    for d, pairs in views:
        rows = [[d.group_id, r.topic, str(r.partition)] + ([_v(s.leader_epoch)] if verbose else [])
                + [_v(s.start_offset), _v(r.log_end), _v(s.lag), _v(r.consumer_id), _v(r.host), _v(r.client_id)]
                + (time_lag_cells(r) if time_lag else []) for s, r in pairs]
        if out.format == "plain":
            from kcli.render.streams import plain_columns

            out.write(plain_columns(columns, rows) if rows else
                      f"\nShare group '{d.group_id}' has no offset information.\n")
        elif rows:
            out.table(Table(list(columns), rows))


def render_members(out, groups: list[ShareGroupDescription], verbose: bool) -> None:
    """Share groups' members (JSON schema kcli.share-group-members/v1)."""
    from kcli.render.output import Table, json_document

    if out.format == "json":
        out.json(json_document("share-group-members", groups=[{
            "group": d.group_id, "state": d.state,
            "members": [{"memberId": m.member_id, "clientId": m.client_id, "host": m.host, "rackId": m.rack,
                         "memberEpoch": m.member_epoch, "subscribedTopics": m.subscribed,
                         "assignment": [{"topic": t, "partition": p} for t, p in m.assignment]}
                        for m in sorted(d.members, key=lambda m: m.member_id)]} for d in groups]))
        return
    if out.format == "plain":
        out.write("".join(plain_members(d, verbose) for d in groups))
        return
    columns = ["GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS"] + (["MEMBER-EPOCH"] if verbose else []) + [
        "ASSIGNMENT"]
    rows = [[d.group_id, m.member_id, m.host, m.client_id, str(len(m.assignment))]
            + ([str(m.member_epoch)] if verbose else []) + [assignment_text(m) or MISSING]
            for d in groups for m in sorted(d.members, key=lambda m: m.member_id)]
    out.table(Table(columns, rows))


def render_state(out, groups: list[ShareGroupDescription], verbose: bool) -> None:
    """Share groups' state (JSON schema kcli.share-group-state/v1)."""
    from kcli.render.output import Table, json_document

    if out.format == "json":
        out.json(json_document("share-group-state", groups=[{
            "group": d.group_id, "type": "Share", "state": d.state, "members": len(d.members),
            "coordinator": None if d.coordinator is None else {"id": d.coordinator.node_id, "host": d.coordinator.host,
                                                               "port": d.coordinator.port},
            "groupEpoch": d.group_epoch, "assignmentEpoch": d.assignment_epoch, "assignor": d.assignor}
            for d in groups]))
        return
    if out.format == "plain":
        out.write("".join(plain_state(d, verbose) for d in groups))
        return
    columns = ["GROUP", "COORDINATOR (ID)", "STATE"] + (["GROUP-EPOCH", "ASSIGNMENT-EPOCH"] if verbose else []) + [
        "#MEMBERS"]
    out.table(Table(columns, [[d.group_id, coordinator_text(d), d.state]
                              + ([str(d.group_epoch), str(d.assignment_epoch)] if verbose else [])
                              + [str(len(d.members))] for d in groups]))
