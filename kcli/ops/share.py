"""Share groups (KIP-932; kafka-share-groups): listing, describing, their share-partition start
offsets and lag, deleting groups and their offsets, and the checks the tool makes before each.
No client library speaks the share-group requests: they go over kcli's own connection
(``kcli.admin.wire.share``)."""

from __future__ import annotations

from kcli import javaorder
from kcli.errors import OperationError
from kcli.model import BrokerError, GroupListing, ShareGroupDescription, ShareOffset

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.admin import Admin

STATES = ("Stable", "Dead", "Empty")                 # GroupState.groupStatesForType(SHARE)


def listed(admin: Admin, states: set[str] | None = None) -> list[GroupListing]:
    """The share groups in the given states (None or empty: all), in kafka-share-groups --list's
    order (the admin client's HashMap of the listed groups, by id)."""
    found = {g.group_id: g for g in admin.list_share_groups() if not states or g.state in states}
    return [found[g] for g in javaorder.group_listing(list(found))]


def parse_states(text: str) -> set[str]:
    """kafka-share-groups' --state list (case-insensitive, comma-separated); UsageError for a
    state share groups do not have."""
    from kcli.errors import UsageError

    by_upper = {s.upper(): s for s in STATES}
    states = {by_upper.get(s.strip().upper()) for s in text.split(",")}
    if None in states:
        raise UsageError(f"Invalid state list '{text}'. Valid states are: {', '.join(STATES)}")
    return states  # type: ignore[return-value]


def not_found(group: str, error: BrokerError | None) -> str:
    """The Java tool's exception text for a group ShareGroupDescribe did not describe (the
    broker's words: "Group g is not a share group." for a group of another type); another error
    by its name and the broker's message."""
    if error is None or error.name == "GROUP_ID_NOT_FOUND":
        words = error.message if error is not None and error.message else f"Group {group} not found."
        return f"org.apache.kafka.common.errors.GroupIdNotFoundException: {words}"
    return f"{error.name}: {error.message or error.name}"


def described(admin: Admin, ids: list[str]) -> list[ShareGroupDescription]:
    """The share groups ``ids``, sorted by id; the first that is not one (in the Java tool's
    order: its HashMap of the groups' futures) fails the command with the tool's exception."""
    if not ids:
        return []
    errors: dict[str, BrokerError | None] = {}
    found = admin.describe_share_groups(list(dict.fromkeys(ids)), errors)
    for g in javaorder.strings(list(dict.fromkeys(ids))):
        if g not in found:
            raise OperationError(not_found(g, errors.get(g)))
    return [found[g] for g in sorted(found)]


def group_ids(admin: Admin, ids: list[str], all_groups: bool) -> list[str]:
    return [g.group_id for g in listed(admin)] if all_groups else ids


def offsets(admin: Admin, group: str, answer: tuple | None = None) -> list[ShareOffset]:
    """A share group's share-partitions (DescribeShareGroupOffsets, or its ``answer`` from
    ``share_group_offsets_of_groups``), sorted by topic and partition; those answered with an
    error are left out (as Java's admin client does). The group's error fails the command."""
    error, rows = answer if answer is not None else admin.share_group_offsets(group)
    if error is not None:
        raise OperationError(not_found(group, error))
    return sorted((r for r in rows if r.error is None), key=lambda r: (r.topic, r.partition))


def delete_refusals(admin: Admin, ids: list[str]) -> tuple[list[str], dict[str, str]]:
    """kafka-share-groups --delete's checks before its DeleteGroups (one ListGroups): a group
    that is not a share group, one that is Dead or not Empty is not deleted; each with the tool's
    exception text. (The groups to delete, in order; the refused ones.)"""
    states = {g.group_id: g.state for g in listed(admin)}
    refused = {}
    for g in dict.fromkeys(ids):
        if g not in states:
            refused[g] = f"org.apache.kafka.common.errors.GroupIdNotFoundException: Group '{g}' is not a share group."
        elif states[g] == "Dead":
            refused[g] = f"java.lang.IllegalStateException: Share group '{g}' group state is DEAD."
        elif states[g] != "Empty":
            refused[g] = f"org.apache.kafka.common.errors.GroupNotEmptyException: Share group '{g}' is not EMPTY."
    return [g for g in dict.fromkeys(ids) if g not in refused], refused


def delete_offsets(admin: Admin, group: str, topics: list[str]
                   ) -> tuple[BrokerError | None, dict[str, BrokerError | None]]:
    """DeleteShareGroupOffsets for ``topics``: the top-level error, and each topic's (a topic
    the answer leaves out has the top-level error)."""
    from kcli.ops.groups import check_group_ids

    check_group_ids([group])
    wanted = list(dict.fromkeys(topics))
    error, per = admin.delete_share_group_offsets(group, wanted)
    return error, {t: per.get(t, error) if t in per else error for t in wanted}


def check_offsets_deleted(group: str, error: BrokerError | None, per: dict[str, BrokerError | None]) -> None:
    """delete-offsets' exit code, once the results are shown."""
    from kcli.errors import PartialFailure

    failed = [t for t, e in per.items() if e is not None]
    if error is not None or (failed and len(failed) == len(per)):
        raise OperationError(f"The offsets of share group '{group}' were not deleted")
    if failed:
        raise PartialFailure(f"{len(failed)} of {len(per)} topics' offsets of share group '{group}' were not "
                             "deleted")


def offset_views(admin: Admin, groups: list[ShareGroupDescription]):
    """Each share group's share-partitions as offsets rows (kcli.model.GroupOffsetRow: the start
    offset as ``current``, the log end from one ListOffsets per leader, the member assigned the
    partition: one DescribeShareGroupOffsets per coordinator for all the groups), each beside its
    ShareOffset (the broker's lag, KIP-1226), so that the lag in time
    of the record at the start offset is filled in as for a consumer group (kcli.ops.lag)."""
    from kcli.model import GroupOffsetRow

    answers = admin.share_group_offsets_of_groups([d.group_id for d in groups]) if groups else {}
    per = {d.group_id: offsets(admin, d.group_id, answers[d.group_id]) for d in groups}
    every = sorted({(r.topic, r.partition) for rows in per.values() for r in rows})
    ends = {(o.topic, o.partition): o.offset for o in admin.list_offsets(every, -1)
            if o.error is None and o.offset >= 0} if every else {}
    views = []
    for d in groups:
        owner = {tp: m for m in d.members for tp in m.assignment}
        pairs = []
        for r in per[d.group_id]:
            m = owner.get((r.topic, r.partition))
            pairs.append((r, GroupOffsetRow(d.group_id, r.topic, r.partition, r.start_offset,
                                            ends.get((r.topic, r.partition)), r.leader_epoch,
                                            m.member_id if m else None, m.host if m else None,
                                            m.client_id if m else None)))
        views.append((d, pairs))
    return views


def describe_every_type(admin: Admin, ids: list[str], refusals: list | None = None):
    """``kcli describe groups``: the consumer groups, the streams groups and the share groups
    among ``ids``, each sorted by id (a share group is asked for only where the consumer and
    streams describes did not find it). A group none of them knows fails the command; one this
    principal may not describe goes into ``refusals`` (kcli.ops.failures.raise_refusals), when
    given, else fails it."""
    from kcli.ops.groups import not_found_text
    from kcli.ops.streams import describe_any

    descs, streams = describe_any(admin, ids, refusals)
    missing = [d.group_id for d in descs if not d.exists]
    shares = admin.describe_share_groups(missing) if missing else {}
    for d in descs:
        if not d.exists and d.group_id not in shares:
            raise OperationError(not_found_text(d))
    return (sorted((d for d in descs if d.exists and d.group_id not in streams), key=lambda d: d.group_id),
            [streams[g] for g in sorted(streams)], [shares[g] for g in sorted(shares)])


def every_group_id(admin: Admin, ids: list[str], all_groups: bool) -> list[str]:
    """``kcli describe groups``' ids: ``ids``, or with ``all_groups`` every consumer and share
    group (one listing)."""
    from kcli.ops.groups import group_ids

    if ids or not all_groups:
        return group_ids(admin, ids, all_groups)        # its checks: ids or --all-groups, not both
    consumer, _, share = admin.list_every_group()
    return sorted({g.group_id for g in (*consumer, *share)})


def is_share_group(admin: Admin, group: str) -> bool:
    """Whether ``group`` is a share group (one ShareGroupDescribe; none, and False, where the
    broker hosts no share groups)."""
    return group in admin.describe_share_groups([group])


def delete_offsets_rows(admin: Admin, group: str, specs: list[str]):
    """``kcli delete-offsets`` for a share group: DeleteShareGroupOffsets, whole topics only (the
    request names topics; a TOPIC:P spec is refused before it). The shape of
    kcli.ops.groups.delete_offsets: (group-level error, [(topic, -1, error)]) sorted by topic."""
    from kcli.errors import UsageError
    from kcli.specs import parse_topic_spec

    parsed = [parse_topic_spec(s) for s in specs]
    if any(parts is not None for _, parts in parsed):
        raise UsageError(f"'{group}' is a share group: its offsets are deleted per topic; give TOPIC without "
                         "partitions")
    error, per = delete_offsets(admin, group, [t for t, _ in parsed])
    return error, sorted(((t, -1, e) for t, e in per.items()), key=lambda r: r[0])
