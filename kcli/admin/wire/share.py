"""Share groups (KIP-932) on kcli's own connection: ListGroups of type share, ShareGroupDescribe
(77) v1 per coordinator, DescribeShareGroupOffsets (90, Lag from v1: KIP-1226),
AlterShareGroupOffsets (91) and DeleteShareGroupOffsets (92), each to the group's coordinator.
No client library has them (librdkafka has no share-group admin API)."""

from __future__ import annotations

from kcli.admin.wire.coordinators import Backoff
from kcli.admin.wire.groups import GroupRequests
from kcli.errors import UnsupportedByBroker
from kcli.model import BrokerError, BrokerInfo, GroupListing, ShareGroupDescription, ShareMember, ShareOffset


def broker_error(code: int, message: str | None) -> BrokerError | None:
    """Kafka's error ``code`` as kcli's BrokerError (the broker's message; "" when it gave
    none: the views say Kafka's default words, kcli.render.javatext), None for 0."""
    if not code:
        return None
    from kafka.errors import for_code

    cls = for_code(code)
    return BrokerError(code, cls.message, message or "")


class ShareRequests(GroupRequests):
    def list_share_groups(self) -> list[GroupListing]:
        """The share groups: ListGroups v5+ (TypesFilter ["share"]) to every live broker, in the
        order the brokers list them; none on a broker without ListGroups v5."""
        found = {g.group_id: GroupListing(g.group_id, g.group_state or "Unknown", "Share")
                 for _, groups in self._listed_groups("share groups", 5, types_filter=["share"]) or []
                 for g in groups}
        return list(found.values())

    def share_group_describe_version(self) -> int | None:
        return self.max_version(self.proto.ShareGroupDescribeRequest)

    def describe_share_groups(self, group_ids: list[str], errors: dict[str, BrokerError] | None = None,
                              refusals: dict | None = None) -> dict[str, ShareGroupDescription]:
        """ShareGroupDescribe v1, one request per coordinator: the groups the broker knows as
        share groups (others are left out; ``errors``, when given, gets the broker's error for
        each of them). None of them on a broker without share groups. A group this principal
        may not describe raises its NotAuthorized or, given ``refusals``, goes into it ({group:
        NotAuthorized}) and is left out."""
        Req = self.proto.ShareGroupDescribeRequest
        version = self.share_group_describe_version()
        if version is None or not group_ids:
            if errors is not None:
                errors.update({g: BrokerError(69, "GROUP_ID_NOT_FOUND", f"Group {g} not found.") for g in group_ids})
            return {}
        answered, failed = self._describe_per_coordinator(
            group_ids, lambda groups: Req(version=version, group_ids=groups, include_authorized_operations=False),
            "share group", refusals)
        if errors is not None:
            errors.update({g: broker_error(a.error_code, a.error_message) for g, a in failed.items()})
        brokers = {b.node_id: b for b in self.cluster_metadata().brokers} if answered else {}
        return {g: _description(answer, BrokerInfo(node, brokers[node].host, brokers[node].port)
                                if node in brokers else None)
                for g, (node, answer) in answered.items()}

    def _share_request(self, group_id: str, Req, build, what: str):
        """``build(version)``, a ``Req`` (AlterShareGroupOffsets, DeleteShareGroupOffsets) to the group's
        coordinator at the highest common version, asked again (Backoff) while the answer's
        top-level error is a retriable coordinator error."""
        version = self.max_version(Req)
        if version is None:
            raise UnsupportedByBroker(f"The broker does not support {what} (share groups, KIP-932)")
        backoff = Backoff(self.settings.until())
        while True:                                # bounded by the deadline (Backoff)
            node = self.find_coordinators([group_id])[group_id]
            resp = self.send(build(version), node)
            if not self._retriable(group_id, resp.error_code) or not backoff.wait():
                return version, resp

    def share_group_offsets(self, group_id: str) -> tuple[BrokerError | None, list[ShareOffset]]:
        """DescribeShareGroupOffsets for every partition the group has state for: the group's
        error (then no partitions), else each partition's start offset (None where the broker
        says there is none), leader epoch and lag (v1+; None where unknown), in the answer's
        order. Partitions answered with an error keep it (``ShareOffset.error``)."""
        return self.share_group_offsets_of_groups([group_id])[group_id]

    def share_group_offsets_of_groups(self, group_ids: list[str]
                                      ) -> dict[str, tuple[BrokerError | None, list[ShareOffset]]]:
        """``share_group_offsets`` of many groups: one DescribeShareGroupOffsets per coordinator
        (its Groups array), whatever the number of groups; groups answered with a retriable
        coordinator error are asked again until the deadline (Backoff)."""
        Req = self.proto.DescribeShareGroupOffsetsRequest
        version = self.max_version(Req)
        if version is None:
            raise UnsupportedByBroker("The broker does not support DescribeShareGroupOffsets (share groups, KIP-932)")
        out: dict[str, tuple[BrokerError | None, list[ShareOffset]]] = {}
        pending = list(dict.fromkeys(group_ids))
        backoff = Backoff(self.settings.until())
        while pending:                             # bounded by the deadline (Backoff)
            moved = []
            for node, groups in self._by_coordinator(pending).items():
                resp = self.send(Req(version=version, groups=[
                    Req.DescribeShareGroupOffsetsRequestGroup(group_id=g, topics=None) for g in groups]), node)
                for g in resp.groups:
                    if g.error_code and self._retriable(g.group_id, g.error_code) and g.group_id in groups:
                        moved.append(g.group_id)
                    else:
                        out[g.group_id] = _offsets(g, version)
            if not moved or not backoff.wait():
                for g in moved:
                    out.setdefault(g, (broker_error(15, None), []))
                break
            pending = moved
        return out

    def alter_share_group_offsets(self, group_id: str, offsets: dict[tuple[str, int], int]
                                  ) -> tuple[BrokerError | None, dict[tuple[str, int], BrokerError | None]]:
        """AlterShareGroupOffsets: the group's share-partition start offsets set to ``offsets``
        (the group must be empty). The top-level error, and each partition's."""
        Req = self.proto.AlterShareGroupOffsetsRequest
        by_topic: dict[str, list] = {}
        for (t, p), offset in offsets.items():
            by_topic.setdefault(t, []).append(
                Req.AlterShareGroupOffsetsRequestTopic.AlterShareGroupOffsetsRequestPartition(
                    partition_index=p, start_offset=offset))

        def build(version):
            return Req(version=version, group_id=group_id, topics=[
                Req.AlterShareGroupOffsetsRequestTopic(topic_name=t, partitions=ps) for t, ps in by_topic.items()])
        _, resp = self._share_request(group_id, Req, build, "AlterShareGroupOffsets")
        parts = {(t.topic_name, p.partition_index): broker_error(p.error_code, p.error_message)
                 for t in resp.responses for p in t.partitions}
        return broker_error(resp.error_code, resp.error_message), parts

    def delete_share_group_offsets(self, group_id: str, topics: list[str]
                                   ) -> tuple[BrokerError | None, dict[str, BrokerError | None]]:
        """DeleteShareGroupOffsets: the group's state for ``topics`` deleted (the group must be
        empty). The top-level error, and each topic's."""
        Req = self.proto.DeleteShareGroupOffsetsRequest

        def build(version):
            return Req(version=version, group_id=group_id,
                       topics=[Req.DeleteShareGroupOffsetsRequestTopic(topic_name=t) for t in topics])
        _, resp = self._share_request(group_id, Req, build, "DeleteShareGroupOffsets")
        return (broker_error(resp.error_code, resp.error_message),
                {t.topic_name: broker_error(t.error_code, t.error_message) for t in resp.responses})


def _offsets(g, version: int) -> tuple[BrokerError | None, list[ShareOffset]]:
    """One group of a DescribeShareGroupOffsets answer."""
    if g.error_code:
        return broker_error(g.error_code, g.error_message), []
    rows = []
    for t in g.topics:
        for p in t.partitions:
            known = p.start_offset >= 0
            lag = p.lag if version >= 1 else -1
            rows.append(ShareOffset(t.topic_name, p.partition_index, p.start_offset if known else None,
                                    p.leader_epoch if known and p.leader_epoch >= 0 else None,
                                    lag if known and lag >= 0 else None, broker_error(p.error_code, p.error_message)))
    return None, rows


def _description(g, coordinator: BrokerInfo | None) -> ShareGroupDescription:
    members = [ShareMember(m.member_id, m.client_id, m.client_host, m.member_epoch, m.rack_id,
                           list(m.subscribed_topic_names or []),
                           sorted((tp.topic_name, p) for tp in (m.assignment.topic_partitions if m.assignment else [])
                                  for p in tp.partitions))
               for m in g.members]
    return ShareGroupDescription(g.group_id, g.group_state, coordinator, g.group_epoch, g.assignment_epoch,
                                 g.assignor_name, members)
