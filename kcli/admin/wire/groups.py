"""Consumer and streams groups on kcli's own connection: ConsumerGroupDescribe (GroupCreationTimeMs,
KIP-1282) and DescribeGroups per coordinator, the streams groups' ListGroups and
StreamsGroupDescribe (KIP-1071, KIP-1331), and one ConsumerGroupHeartbeat (KIP-848)."""

from __future__ import annotations

from kcli.admin.wire.coordinators import GROUP_ID_NOT_FOUND, Backoff, CoordinatorRequests
from kcli.admin.wire.metadata import MetadataRequests
from kcli.errors import OperationError, UnsupportedByBroker
from kcli.model import (BrokerInfo, GroupListing, HeartbeatAnswer, LayoutReading, StreamsGroupDescription,
                        StreamsMember)

TYPE_CHECKING = False                 # typing's, without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any


class GroupRequests(CoordinatorRequests, MetadataRequests):
    # -- KIP-1282 -------------------------------------------------------------------------
    def consumer_group_describe_version(self) -> int | None:
        return self.max_version(self.proto.ConsumerGroupDescribeRequest)

    def group_creation_times(self, group_ids: list[str]) -> dict[str, int | None] | None:
        """KIP-1282: GroupCreationTimeMs per group (-1: the broker does not know it, as for a
        group created before the upgrade; None: the broker does not describe the group as a
        consumer-protocol group), or None when the broker has no ConsumerGroupDescribe v2. The
        one lookup the reset planner and the consumer use."""
        version = self.consumer_group_describe_version()
        if version is None or version < 2:
            return None
        described = self.describe_consumer_groups_v2(group_ids)
        return {g: (-1 if described[g].group_creation_time_ms is None
                    else max(-1, described[g].group_creation_time_ms)) if g in described else None
                for g in group_ids}

    def describe_consumer_groups_v2(self, group_ids: list[str]) -> dict[str, Any]:
        """ConsumerGroupDescribe at the highest common version (GroupCreationTimeMs from v2),
        one request per coordinator. Returns the described group per id, for the groups the
        broker knows as consumer-protocol groups (others come back with an error and are left
        out). Groups answered with a retriable coordinator error are asked again until the
        deadline (Backoff), then OperationError: left out, they would read as classic groups."""
        Req = self.proto.ConsumerGroupDescribeRequest
        version = self.max_version(Req)
        if version is None or not group_ids:
            return {}
        answered, _ = self._describe_per_coordinator(
            group_ids, lambda groups: Req(version=version, group_ids=groups,
                                          include_authorized_operations=False), "consumer group")
        return {g: answer for g, (_, answer) in answered.items()}

    # -- describe groups: one request per coordinator, whatever the number of groups ----------
    def describe_groups(self, group_ids: list[str]) -> tuple[dict[str, tuple[str, object, int | None]],
                                                             dict[int, BrokerInfo]]:
        """({group id: (kind, described group, coordinator node)}, {node: BrokerInfo}): kind
        "consumer" from ConsumerGroupDescribe (when the broker has it), then "classic" from
        DescribeGroups for the groups it did not describe, each one request per coordinator;
        "missing" for a group neither knows (with ConsumerGroupDescribe's GROUP_ID_NOT_FOUND
        message, "Group G is not a consumer group." for a group of another type, or None),
        "error" (the group's error answer) for one a coordinator refused, "refused" (its
        NotAuthorized) for one this principal may not describe. Groups answered with a
        retriable coordinator error (moved, not available, loading) are asked again until the
        deadline (Backoff)."""
        from kafka.protocol.admin.groups import DescribeGroupsRequest as Describe

        cgd = self.max_version(self.proto.ConsumerGroupDescribeRequest)
        dg = self._version(Describe, "DescribeGroups")
        out: dict[str, tuple[str, object, int | None]] = {}
        not_found: dict[str, str] = {}             # ConsumerGroupDescribe's words for a group it does not know
        pending = list(dict.fromkeys(group_ids))
        backoff = Backoff(self.settings.until())
        while True:                                # bounded by the deadline (Backoff)
            moved, refused = self._describe_round(pending, cgd, dg, out, not_found)
            if not moved or not backoff.wait():    # at the deadline: their error answers stay
                for g, answer in refused.items():  # not "missing": DescribeGroups knows no consumer group
                    if out.get(g, ("missing",))[0] == "missing":
                        out[g] = ("error", *answer)
                break
            pending = [g for g in pending if g in moved]
            for g in pending:
                out.pop(g, None)
        for g, message in not_found.items():       # known to neither: the broker's words kept
            if _unknown_to_describe_groups(out.get(g)):
                out[g] = ("missing", message, out.get(g, (None, None, None))[2])
        brokers = {b.node_id: BrokerInfo(b.node_id, b.host, b.port) for b in self.cluster_metadata().brokers}
        return out, brokers

    def _describe_round(self, pending: list[str], cgd: int | None, dg: int,
                        out: dict[str, tuple[str, object, int | None]],
                        not_found: dict[str, str]) -> tuple[set[str], dict[str, tuple]]:
        """One round of ``describe_groups`` over ``pending``, its answers into ``out`` (and
        ConsumerGroupDescribe's words for a group it does not know into ``not_found``): (the
        groups to ask again, ConsumerGroupDescribe's retriable answers to them)."""
        moved: set[str] = set()
        refused: dict[str, tuple] = {}
        refusals: dict = {}
        by_node = self._by_coordinator(pending, refusals)
        for g, refusal in refusals.items():
            out[g] = ("refused", refusal, None)
        # Groups this client listed as classic go to DescribeGroups alone: 10k classic
        # groups' ConsumerGroupDescribe errors were a third of the decoding.
        first = {node: [g for g in groups if self._listed_types.get(g) != "classic"]
                 for node, groups in by_node.items()}
        self._consumer_describe(first, cgd, out, moved, refused, not_found)
        rest = {node: [g for g in groups if g not in out] for node, groups in by_node.items()}
        self._classic_describe(rest, dg, out, moved)
        # one listed as classic that DescribeGroups no longer knows (not found, or Dead
        # without members below v6) may have become a consumer group since the listing
        listed_classic = {g for groups in by_node.values() for g in groups} - {g for gs in first.values() for g in gs}
        self._consumer_describe({node: [g for g in groups if g in listed_classic
                                        and _unknown_to_describe_groups(out.get(g))]
                                 for node, groups in rest.items()}, cgd, out, moved, refused, not_found)
        return moved, refused

    def _consumer_describe(self, asked: dict[int, list[str]], version: int | None,
                           out: dict[str, tuple[str, object, int | None]], moved: set[str],
                           refused: dict[str, tuple], not_found: dict[str, str]) -> None:
        """ConsumerGroupDescribe of ``asked`` (groups per node), all nodes at once (none without
        the API): each described group into ``out``, a retriable error into ``moved`` and
        ``refused``, GROUP_ID_NOT_FOUND's message into ``not_found``."""
        Consumer = self.proto.ConsumerGroupDescribeRequest
        asked = {node: groups for node, groups in asked.items() if groups}
        requests = [(node, Consumer(version=version, group_ids=groups, include_authorized_operations=False))
                    for node, groups in asked.items()] if version is not None else []
        for (node, _), resp in zip(requests, self.send_each(requests)):
            for g in resp.groups:
                if not g.error_code:
                    out[g.group_id] = ("consumer", g, node)
                elif g.error_code == GROUP_ID_NOT_FOUND:
                    if g.error_message:
                        not_found[g.group_id] = g.error_message
                elif self._retriable(g.group_id, g.error_code):
                    moved.add(g.group_id)     # asked again: DescribeGroups may not know it
                    refused[g.group_id] = (g, node)

    def _classic_describe(self, asked: dict[int, list[str]], version: int,
                          out: dict[str, tuple[str, object, int | None]], moved: set[str]) -> None:
        """DescribeGroups of ``asked`` (groups per node), all nodes at once: each group's answer
        into ``out`` (classic, missing or error), a retriable error also into ``moved``."""
        from kafka.protocol.admin.groups import DescribeGroupsRequest as Describe

        requests = [(node, Describe(version=version, groups=groups, include_authorized_operations=False))
                    for node, groups in asked.items() if groups]
        for (node, req), resp in zip(requests, self.send_each(requests)):
            wanted = set(req.groups)
            for g in resp.groups:
                gid, code = g.group_id, g.error_code
                if gid not in wanted:
                    continue
                if not code:                   # 10k groups: the common case first
                    out[gid] = ("classic", g, node)
                    continue
                if self._retriable(gid, code):
                    moved.add(gid)
                out[gid] = ("missing", None, node) if code == GROUP_ID_NOT_FOUND else ("error", g, node)

    # -- listing groups: one ListGroups per broker ----------------------------------------
    def _listed_groups(self, what: str, min_version: int = 0, **filters):
        """(node, its listed groups) for every live broker's ListGroups answer (each names the
        groups it coordinates) at the highest common version, ``filters`` (states_filter,
        types_filter) from the version that has them; None without ListGroups ``min_version``. A
        broker's error code fails the list: it would not be the cluster's."""
        from kafka.errors import for_code
        from kafka.protocol.admin.groups import ListGroupsRequest as Req

        version = self.max_version(Req)
        if version is None or version < min_version:
            return None
        fields = {k: v for k, v, since in (("states_filter", filters.get("states_filter", []), 4),
                                           ("types_filter", filters.get("types_filter", []), 5)) if version >= since}
        nodes = self.broker_ids()
        answers = self.send_each([(node, Req(version=version, **fields)) for node in nodes])
        for node, resp in zip(nodes, answers):
            if resp.error_code:
                raise OperationError(f"Cannot list {what} on broker {node}: {for_code(resp.error_code).description}")
        return [(node, resp.groups) for node, resp in zip(nodes, answers)]

    def list_groups(self) -> list[tuple[str, str | None, str | None]]:
        """(group id, state or None, type or None) of every consumer group, in the order the
        brokers list them (broker by broker, as the Java admin client fills its map: the order
        kafka-consumer-groups --list starts from, kcli.javaorder.group_listing): the groups of
        protocol type "consumer", or "" (a group that only commits offsets), classic
        and consumer-protocol alike, as librdkafka's ListConsumerGroups selects them; the state
        from ListGroups v4, the type from v5 (below those versions, the schema's default). One
        ListGroups per live broker."""
        return self._consumer_groups(self._listed_groups("consumer groups") or [])

    def list_every_group(self) -> tuple[list[tuple[str, str | None, str | None]], list[GroupListing],
                                        list[GroupListing]]:
        """The consumer groups (as ``list_groups``), the streams groups and the share groups (as
        ``list_streams_groups`` and ``list_share_groups``) from one ListGroups per live broker,
        unfiltered: v5+ names each group's type (below v5, no streams or share groups)."""
        answers = self._listed_groups("groups") or []
        listed = {kind: {g.group_id: GroupListing(g.group_id, g.group_state or "Unknown", kind.capitalize())
                         for _, groups in answers for g in groups if (g.group_type or "").lower() == kind}
                  for kind in ("streams", "share")}
        return (self._consumer_groups(answers), sorted(listed["streams"].values(), key=lambda g: g.group_id),
                list(listed["share"].values()))

    def _consumer_groups(self, answers) -> list[tuple[str, str | None, str | None]]:
        found = {}
        # the broker that lists a group coordinates it: no FindCoordinator for 10k keys (a group
        # that moved since answers NOT_COORDINATOR and is looked up then)
        coordinators, types = self._coordinators, self._listed_types
        for node, groups in answers:
            for g in groups:                    # 10k groups: attributes read once each
                if g.protocol_type in ("", "consumer"):
                    gid, gtype = g.group_id, g.group_type
                    found[gid] = (gid, g.group_state, gtype)
                    coordinators[gid] = node
                    if gtype:
                        types[gid] = gtype.lower()
        return list(found.values())

    # -- streams groups (KIP-1071; creation time KIP-1282 on StreamsGroupDescribe v2) -------
    def list_streams_groups(self) -> list[GroupListing]:
        """The streams groups: ListGroups v5+ (TypesFilter ["streams"]) to every live broker,
        each answering for the groups it coordinates; sorted by id. None on a broker without
        ListGroups v5 (no streams groups there)."""
        found = {g.group_id: GroupListing(g.group_id, g.group_state or "Unknown", "Streams")
                 for _, groups in self._listed_groups("streams groups", 5, types_filter=["streams"]) or []
                 for g in groups}
        return sorted(found.values(), key=lambda g: g.group_id)

    def streams_group_describe_version(self) -> int | None:
        return self.max_version(self.proto.StreamsGroupDescribeRequest)

    def describe_streams_groups(self, group_ids: list[str],
                                errors: dict[str, str] | None = None) -> dict[str, StreamsGroupDescription]:
        """StreamsGroupDescribe at the highest common version, one request per coordinator: the
        groups the broker knows as streams groups (others are left out; ``errors``, when given,
        gets the broker's message for each of them). GroupCreationTimeMs is read from v2+ only
        (v1 is KIP-1331's, Apache Kafka 4.4: no creation time there)."""
        Req = self.proto.StreamsGroupDescribeRequest
        version = self.streams_group_describe_version()
        if version is None or not group_ids:
            return {}
        fields = dict(include_authorized_operations=False)
        if version >= 1:
            fields["include_topology_description"] = False
        answered, failed = self._describe_per_coordinator(
            group_ids, lambda groups: Req(version=version, group_ids=groups, **fields), "streams group")
        if errors is not None:
            errors.update({g: answer.error_message or "" for g, answer in failed.items()})
        brokers = {b.node_id: b for b in self.cluster_metadata().brokers} if answered else {}
        return {g: _streams_description(answer, version,
                                        BrokerInfo(node, brokers[node].host, brokers[node].port)
                                        if node in brokers else None)
                for g, (node, answer) in answered.items()}

    TOPOLOGY_STATUS = {0: "NOT_REQUESTED", 1: "NOT_STORED", 2: "ERROR", 3: "AVAILABLE"}

    def streams_topology_status(self, group_id: str) -> str:
        """KIP-1331: the TopologyDescriptionStatus StreamsGroupDescribe v1+ answers for one group
        when asked to include its topology description (NOT_STORED, ERROR, AVAILABLE...);
        GroupIdNotFoundException's words for a group it does not know; UnsupportedByBroker below v1."""
        Req = self.proto.StreamsGroupDescribeRequest
        version = self.streams_group_describe_version()
        if version is None or version < 1:
            raise UnsupportedByBroker("The broker does not support topology descriptions (StreamsGroupDescribe v1)")
        node = self.find_coordinators([group_id])[group_id]
        resp = self.send(Req(version=version, group_ids=[group_id], include_authorized_operations=False,
                             include_topology_description=True), node)
        (g,) = resp.groups
        self._forget_moved(g.group_id, g.error_code)
        if g.error_code:
            raise OperationError(f"org.apache.kafka.common.errors.GroupIdNotFoundException: Group {group_id} not "
                                 "found.")
        return self.TOPOLOGY_STATUS.get(g.topology_description_status, str(g.topology_description_status))

    def consumer_group_heartbeat(self, group_id: str, member_id: str, epoch: int,
                                 topics: list[str] | None) -> HeartbeatAnswer:
        """One ConsumerGroupHeartbeat (KIP-848) to the group's coordinator: epoch 0 joins with
        ``topics``, -1 leaves. GroupCreationTimeMs from v2 (KIP-1282)."""
        from kafka.errors import for_code

        Req = self.proto.ConsumerGroupHeartbeatRequest
        version = self._version(Req, "ConsumerGroupHeartbeat")
        node = self.find_coordinators([group_id])[group_id]
        resp = self.send(Req(version=version, group_id=group_id, member_id=member_id, member_epoch=epoch,
                             instance_id=None, rack_id=None, rebalance_timeout_ms=30_000 if epoch == 0 else -1,
                             subscribed_topic_names=topics, server_assignor=None,
                             topic_partitions=[] if epoch == 0 else None),
                         node)
        self._forget_moved(group_id, resp.error_code)
        created = None
        if version >= 2:
            created = -1 if resp.group_creation_time_ms is None else resp.group_creation_time_ms
        return HeartbeatAnswer(for_code(resp.error_code).message if resp.error_code else None,
                               resp.member_id, resp.member_epoch, created)

    def consumer_group_heartbeat_layouts(self, group_id: str, member_id: str, topics: list[str]) -> list[LayoutReading]:
        """One ConsumerGroupHeartbeat v2 join (epoch 0, ``topics``) to the group's coordinator,
        its answer's bytes read with each of ConsumerGroupHeartbeatResponse v2's layouts
        (heartbeat_readings). The caller checks that the broker advertises v2 (UnsupportedByBroker
        otherwise); the member joins as any other."""
        from kcli.protocol import heartbeat_layouts

        Req = self.proto.ConsumerGroupHeartbeatRequest
        if self._version(Req, "ConsumerGroupHeartbeat") < heartbeat_layouts.VERSION:
            raise UnsupportedByBroker("The broker does not support ConsumerGroupHeartbeat v2")
        node = self.find_coordinators([group_id])[group_id]
        body = self.send_raw(Req(version=heartbeat_layouts.VERSION, group_id=group_id, member_id=member_id,
                                 member_epoch=0, instance_id=None, rack_id=None, rebalance_timeout_ms=30_000,
                                 subscribed_topic_names=topics, server_assignor=None, topic_partitions=[]), node)
        self._forget_moved(group_id, int.from_bytes(body[4:6], "big", signed=True))  # every layout: after throttle
        return heartbeat_readings(body)


def heartbeat_readings(body: bytes) -> list[LayoutReading]:
    """A ConsumerGroupHeartbeat v2 answer's bytes (after the response header) as each layout
    reads them, the accepted one first."""
    from kafka.errors import for_code

    from kcli.protocol import heartbeat_layouts

    readings = []
    for layout in heartbeat_layouts.LAYOUTS:
        fields, left = heartbeat_layouts.read(layout, body)
        if fields is None:
            readings.append(LayoutReading(layout, left))
            continue
        try:
            error = for_code(fields["error_code"]).message if fields["error_code"] else None
        except Exception:                       # noqa: BLE001 - a code no Kafka has: the layout misread it
            error = f"code {fields['error_code']}"
        assigned = (fields["assignment"] or {}).get("topic_partitions") or []
        new = [p for t in assigned for p in t.get("new_partitions") or []]
        readings.append(LayoutReading(
            layout, left, error, fields["member_id"], fields["member_epoch"], fields["heartbeat_interval_ms"],
            fields.get("group_creation_time_ms"), sorted(p for t in assigned for p in t["partitions"] or []),
            new if any(t.get("new_partitions") is not None for t in assigned) else None))
    return readings


def _unknown_to_describe_groups(answer) -> bool:
    """A DescribeGroups answer (kind, group, node) that says the group is no classic group: not
    found (v6), or Dead without members (before v6)."""
    if answer is None or answer[0] == "missing":
        return True
    return answer[0] == "classic" and answer[1].group_state == "Dead" and not answer[1].members


def _tasks(task_ids) -> list[tuple[str, int]]:
    return sorted((t.subtopology_id, p) for t in (task_ids or []) for p in t.partitions)


def _streams_description(g, version: int, coordinator: BrokerInfo | None) -> StreamsGroupDescription:
    """One StreamsGroupDescribe DescribedGroup as kcli's model."""
    topology = g.topology
    sources, inputs, internal = {}, set(), []
    if topology is not None:
        for sub in topology.subtopologies or []:
            sources[sub.subtopology_id] = [*sub.source_topics, *(t.name for t in sub.repartition_source_topics)]
            inputs.update(sub.source_topics)
            internal += [t.name for t in [*sub.repartition_source_topics, *sub.state_changelog_topics]]
    members = []
    for m in g.members:
        a, t = m.assignment, m.target_assignment
        members.append(StreamsMember(
            m.member_id, m.client_id, m.client_host, m.process_id, m.instance_id, m.member_epoch,
            m.topology_epoch, bool(m.is_classic),
            _tasks(a and a.active_tasks), _tasks(a and a.standby_tasks), _tasks(a and a.warmup_tasks),
            _tasks(t and t.active_tasks), _tasks(t and t.standby_tasks), _tasks(t and t.warmup_tasks)))
    creation = None
    if version >= 2:
        creation = g.group_creation_time_ms
        creation = -1 if creation is None else max(-1, creation)
    return StreamsGroupDescription(
        g.group_id, g.group_state, coordinator, g.group_epoch, g.assignment_epoch,
        topology.epoch if topology is not None else None, sources, members, creation,
        getattr(g, "assignor_name", None) if version >= 1 else None, version, sorted(inputs),
        [t for t in dict.fromkeys(internal) if t not in inputs])
