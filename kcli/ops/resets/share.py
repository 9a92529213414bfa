"""A reset of share groups (KIP-932) on the one reset path: ``ShareStore`` is the admin adapter
as the reset sees a share group, its share-partition start offsets standing for committed
offsets (DescribeShareGroupOffsets to read them, AlterShareGroupOffsets to set them,
DeleteShareGroupOffsets to remove them), so that the planner, the rollback file, the
read-back and the exit codes are the consumer groups' own."""

from __future__ import annotations

from kcli.errors import OperationError
from kcli.model import BrokerError, CommittedOffset, GroupDescription, GroupMember, ShareGroupDescription

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.admin import Admin

TP = tuple[str, int]
# a share group's state is deleted per topic (DeleteShareGroupOffsets names topics)
PER_TOPIC = BrokerError(-1, "NOT_APPLIED", "a share group's offsets are deleted per topic, and this topic has "
                                           "other partitions with a start offset")


def as_group(d: ShareGroupDescription) -> GroupDescription:
    """A share group as a GroupDescription (type "Share"), for the reset's checks."""
    return GroupDescription(d.group_id, d.state, "Share", d.assignor, d.coordinator,
                            [GroupMember(m.member_id, m.client_id, m.host, list(m.assignment), None, m.member_epoch)
                             for m in d.members], d.group_epoch, d.assignment_epoch, None)


class ShareStore:
    """``admin`` with the group calls a reset makes answered for share groups (``groups``: the
    described ones; any other id is a share group that does not exist yet). Every other call
    goes to ``admin``."""

    def __init__(self, admin: Admin, groups: dict[str, ShareGroupDescription]):
        self._admin, self._groups = admin, groups

    def __getattr__(self, name):
        return getattr(self._admin, name)

    def describe_groups(self, group_ids: list[str], refusals: list | None = None) -> list[GroupDescription]:
        return [as_group(self._groups[g]) if g in self._groups else
                GroupDescription(g, "Dead", "Share", "", None, exists=False, not_found=f"Group {g} not found.")
                for g in group_ids]

    def describe_streams_groups(self, group_ids, errors=None) -> dict:
        return {}

    def group_creation_times(self, group_ids: list[str]) -> None:
        return None                       # share groups have no creation time (KIP-1282 is not theirs)

    def committed_offsets(self, group_id: str, partitions: list[TP] | None = None) -> list[CommittedOffset]:
        """The share-partition start offsets (None for a partition without one); a group that
        does not exist has none."""
        error, rows = self._admin.share_group_offsets(group_id)
        if error is not None and error.name != "GROUP_ID_NOT_FOUND":
            from kcli.errors import BrokerRejected

            raise BrokerRejected(error, f"Cannot read the start offsets of share group '{group_id}': "
                                        f"{error.message or error.name}")
        found = {(r.topic, r.partition): r for r in rows if r.error is None}
        keys = list(found) if partitions is None else partitions
        return [CommittedOffset(t, p, found[(t, p)].start_offset if (t, p) in found else None,
                                found[(t, p)].leader_epoch if (t, p) in found else None) for t, p in keys]

    def committed_offsets_of_groups(self, group_ids: list[str], partitions: dict[str, list[TP]] | None = None
                                    ) -> dict[str, list[CommittedOffset]]:
        return {g: self.committed_offsets(g, (partitions or {}).get(g)) for g in group_ids}

    def alter_group_offsets(self, group_id: str, offsets: dict[TP, int], until: float | None = None
                            ) -> dict[TP, BrokerError | None]:
        error, per = self._admin.alter_share_group_offsets(group_id, offsets)
        return {tp: per.get(tp) or error for tp in offsets}

    def delete_group_offsets(self, group_id: str, partitions: list[TP]):
        """A restore's partitions without a start offset before: their topic's state deleted
        where the restore names every partition of it with state, else PER_TOPIC for them."""
        held: dict[str, set[int]] = {}
        for c in self.committed_offsets(group_id):
            if c.offset is not None:
                held.setdefault(c.topic, set()).add(c.partition)
        asked: dict[str, set[int]] = {}
        for t, p in partitions:
            asked.setdefault(t, set()).add(p)
        whole = [t for t in asked if held.get(t, set()) <= asked[t]]
        error, per = self._admin.delete_share_group_offsets(group_id, whole) if whole else (None, {})
        return error, {(t, p): (per.get(t) if t in whole else PER_TOPIC) for t, p in partitions}


def share_view(admin: Admin, ids: list[str], share_tool: bool = False):
    """``admin`` as a reset of ``ids`` needs it: a ShareStore when they are share groups
    (``share_tool``: kafka-share-groups, every id is one), else ``admin``. Share groups and
    groups of other types are not reset together. One ShareGroupDescribe per coordinator, only
    where the broker has share groups."""
    if isinstance(admin, ShareStore) or not ids:
        return admin
    # no request where the broker has no share groups; a group this principal may not describe
    # is not seen as one here: the reset's describe names its refusal
    found = admin.describe_share_groups(ids, refusals={})
    if share_tool or (found and len(found) == len(ids)):
        return ShareStore(admin, found)
    if found:
        raise OperationError(f"'{next(iter(found))}' is a share group: reset share groups apart from groups of "
                             "other types")
    return admin
