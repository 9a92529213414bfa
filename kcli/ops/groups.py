"""Consumer groups (kafka-consumer-groups): list filters in the tool's order, the describe
views' data, delete offsets. Request counts grow with the brokers, neither with the partitions
nor with the groups: OffsetFetch per coordinator (many groups each), ListOffsets per leader."""

from __future__ import annotations

from kcli import javaorder
from kcli.errors import OperationError, UsageError
from kcli.model import BrokerError, GroupDescription, GroupOffsetRow
from kcli.ops.failures import change, per_item, raise_for
from kcli.specs import parse_topic_spec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.admin import Admin


REBALANCING = ("PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling")
# KIP-1282: why a classic group has no creation time, and never will.
CLASSIC_REASON = "creation times exist for group.protocol=consumer groups (KIP-1282)"


def _classic(d: GroupDescription) -> bool:
    return d.exists and d.type == "Classic"


def classic_groups(descs: list[GroupDescription]) -> set[str]:
    """The classic groups among ``descs`` (existing ones): never a creation time."""
    return {d.group_id for d in descs if _classic(d)}


def classic_creation_note(descs: list[GroupDescription]) -> str | None:
    """``describe groups --state --verbose``: the reason, once, for the classic groups shown
    without a creation time (``-``)."""
    shown = sorted(d.group_id for d in descs if _classic(d) and d.creation_time_ms in (None, -1))
    if not shown:
        return None
    return f"GROUP-CREATION-TIME is - for classic group(s) {', '.join(repr(g) for g in shown)}: {CLASSIC_REASON}"


def list_groups(admin: Admin, states: set[str] | None, types: set[str] | None, streams: bool = False):
    """The groups in the given states and of the given types, in kafka-consumer-groups' order.
    Streams and share groups when the types name them or, with no types asked, when ``streams``
    (kcli list groups lists every group; kafka-consumer-groups --list never lists them)."""
    with_streams = "Streams" in types if types else streams
    with_share = "Share" in types if types else streams
    with_consumer = not types or bool(types - {"Streams", "Share"})
    if with_consumer and (with_streams or with_share):          # one listing for them all
        consumer, streams_groups, share = admin.list_every_group()
    else:
        consumer = admin.list_groups() if with_consumer else []
        streams_groups = admin.list_streams_groups() if with_streams else []
        share = admin.list_share_groups() if with_share else []
    groups = {g.group_id: g for g in [*consumer, *(streams_groups if with_streams else []),
                                      *(share if with_share else [])]}
    return [groups[gid] for gid in javaorder.group_listing(list(groups))
            if (not states or groups[gid].state in states) and (not types or groups[gid].type in types)]


def check_group_ids(groups: list[str]) -> None:
    """An empty group id is refused before any request (the admin client refuses it anyway)."""
    if "" in groups:
        raise UsageError("A group id cannot be empty")


def group_ids(admin: Admin, groups: list[str], all_groups: bool, streams: bool = False,
              and_streams: bool = False) -> list[str]:
    """``groups`` once each, or with ``all_groups`` every consumer group (``streams``: every
    streams group; ``and_streams``: every consumer and streams group), sorted."""
    if bool(groups) == all_groups:
        raise UsageError("Give one or more groups, or --all-groups")
    check_group_ids(groups)
    if not all_groups:
        return list(dict.fromkeys(groups))
    if streams:
        listed = admin.list_streams_groups()
    elif and_streams:
        consumer, streams_groups, _ = admin.list_every_group()       # one listing for both
        listed = [*consumer, *streams_groups]
    else:
        listed = admin.list_groups()
    # the listings come sorted: sorting them again is one pass (a set's order would be a sort)
    return sorted(dict.fromkeys(g.group_id for g in listed))


def listed_ids(admin: Admin) -> list[str]:
    """Every consumer group's id, as the cluster lists them (shell completion)."""
    return [g.group_id for g in admin.list_groups()]


def descriptions(admin: Admin, ids: list[str]) -> list[GroupDescription]:
    """Sorted by group id, a missing group among them (``exists`` False): the caller says how
    it fails."""
    return sorted(admin.describe_groups(ids), key=lambda d: d.group_id)


def delete(admin: Admin, ids: list[str]) -> dict[str, BrokerError | None]:
    """Each group's error, None where it was deleted (``check_deleted`` gives the exit code). A
    group the broker does not know (GROUP_ID_NOT_FOUND, whose DeleteGroups answer carries no
    words) is "Group G not found.", as describe says, not librdkafka's "Broker: The group id
    does not exist"."""
    return {g: BrokerError(e.code, e.name, f"Group {g} not found.") if e is not None and e.name == "GROUP_ID_NOT_FOUND"
            else e for g, e in admin.delete_groups(ids).items()}


def describe(admin: Admin, ids: list[str]) -> list[GroupDescription]:
    """Sorted by group id; a missing group fails the whole command (as the Java tool, 4.0+)."""
    descs = admin.describe_groups(ids)
    for d in descs:
        if not d.exists:
            raise OperationError(not_found_text(d))
    return sorted(descs, key=lambda d: d.group_id)


def not_found_text(d: GroupDescription) -> str:
    """Why a group was not described: the broker's words (GROUP_ID_NOT_FOUND; "Group G is not a
    consumer group." for a group of another type), else "Group G not found."."""
    return d.not_found or f"Group {d.group_id} not found."


def state_notice(d: GroupDescription) -> str | None:
    """The Java tool's per-group notice (stderr), or None."""
    if d.state == "Empty":
        return f"Consumer group '{d.group_id}' has no active members."
    if d.state in REBALANCING:
        return f"Warning: Consumer group '{d.group_id}' is rebalancing."
    return None


def offset_views(admin: Admin, descs: list[GroupDescription]
                 ) -> list[tuple[GroupDescription, list[GroupOffsetRow]]]:
    """Each group with its offsets view's rows: the assigned partitions of each member (most
    partitions first), then committed partitions no member holds. Committed offsets from one
    OffsetFetch per coordinator (many groups each, v8+), log ends from one ListOffsets per
    leader for all the groups' partitions: the requests grow with the brokers, not the groups."""
    committed = admin.committed_offsets_of_groups([d.group_id for d in descs]) if descs else {}
    views = []
    for d in descs:
        mine = {(c.topic, c.partition): c for c in committed.get(d.group_id, [])}
        rows: list[GroupOffsetRow] = []
        assigned: set[tuple[str, int]] = set()
        for m in sorted(d.members, key=lambda m: -len(m.assignment)):
            for tp in sorted(m.assignment):
                assigned.add(tp)
                rows.append(GroupOffsetRow(d.group_id, tp[0], tp[1], None, None, None,
                                           m.member_id, m.host, m.client_id))
        for tp in sorted(set(mine) - assigned):
            rows.append(GroupOffsetRow(d.group_id, tp[0], tp[1], None, None))
        set_committed(rows, mine)
        views.append((d, rows))
    fill_log_ends(admin, [r for _, rows in views for r in rows])
    return views


def fill_offsets(admin: Admin, rows: list[GroupOffsetRow], committed: dict) -> list[GroupOffsetRow]:
    """Each row's committed offset (from ``committed``, by (topic, partition)) and log end (one
    ListOffsets per leader)."""
    set_committed(rows, committed)
    return fill_log_ends(admin, rows)


def set_committed(rows: list[GroupOffsetRow], committed: dict) -> None:
    """Each row's committed offset and its leader epoch, from ``committed`` by (topic, partition)."""
    for r in rows:
        c = committed.get((r.topic, r.partition))
        if c is not None:
            r.current, r.leader_epoch = c.offset, c.leader_epoch


def fill_log_ends(admin: Admin, rows: list[GroupOffsetRow]) -> list[GroupOffsetRow]:
    """Each row's log end: one ListOffsets per leader for every distinct partition of ``rows``. A
    leader that gave no answer fails the view, as the Java tool fails (a partition's own error
    leaves its log end unknown, said in the view)."""
    answers = admin.list_offsets(sorted({(r.topic, r.partition) for r in rows}), -1)
    unanswered = next((o for o in answers if o.unanswered), None)
    if unanswered is not None:
        raise OperationError(f"Cannot read the log end offsets (ListOffsets): {unanswered.error}")
    ends = {(o.topic, o.partition): o.offset for o in answers if o.error is None}
    for r in rows:
        end = ends.get((r.topic, r.partition))
        r.log_end = end if end is not None and end >= 0 else None
    return rows


def delete_offsets(admin: Admin, group: str, specs: list[str]):
    """(group-level BrokerError or None, [(topic, partition or -1, BrokerError or None)]) sorted
    as the Java tool sorts (by the string topic+partition). A group-level error applies to every
    partition."""
    check_group_ids([group])
    parsed = [parse_topic_spec(s) for s in specs]
    leaders = admin.partition_leaders(sorted({t for t, parts in parsed if parts is None}))
    partitions: list[tuple[str, int]] = []
    rows: list[tuple[str, int, BrokerError | None]] = []
    for topic, parts in parsed:
        if parts is not None:
            partitions += [(topic, p) for p in parts]
        elif topic in leaders:
            partitions += [(topic, p) for p in sorted(leaders[topic])]
        else:
            rows.append((topic, -1, UNKNOWN_TOPIC))
    group_error, per = None, {}
    if partitions:
        with change(f"the deletion of the offsets of group '{group}'"):
            group_error, per = admin.delete_group_offsets(group, partitions)
    rows += [(t, p, per.get((t, p)) or group_error) for t, p in partitions]
    return group_error, sorted(rows, key=lambda r: f"{r[0]}{r[1]}")


UNKNOWN_TOPIC = BrokerError(3, "UNKNOWN_TOPIC_OR_PARTITION", "This server does not host this topic-partition.")


def check_deleted(results: dict[str, BrokerError | None]) -> None:
    """delete groups' exit code, once the results are shown."""
    failed, unknown = per_item(results)
    raise_for(len(results), len(failed), f"{len(failed)} of {len(results)} groups could not be deleted"
              + (f", {len(unknown)} unknown (no answer: {', '.join(unknown)} may or may not be deleted)"
                 if unknown else ""), len(unknown))


def check_offsets_deleted(group: str, group_error: BrokerError | None, rows) -> None:
    """delete-offsets' exit code, once the rows are shown: a group-level error failed them all."""
    failed = len(rows) if group_error is not None else sum(e is not None for _, _, e in rows)
    raise_for(len(rows), failed, f"Offsets of group '{group}': {failed} of {len(rows)} partitions not deleted")
