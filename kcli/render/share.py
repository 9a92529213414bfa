"""Share-group views (KIP-932): kafka-share-groups' plain layouts (--list, --describe with
--offsets, --members or --state, --delete, --delete-offsets), byte for byte."""

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
