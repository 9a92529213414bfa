"""The KIP requests no client library exposes, sent with kafka-python's protocol layer after
ApiVersions negotiation: DescribeTopicPartitions v1 (CreationTimeMs, KIP-1327), Metadata v14
(PartitionAgeMs, KIP-1327), ConsumerGroupDescribe v2 (GroupCreationTimeMs, KIP-1282). Beside
them, what ``describe topics`` also needs (the topic names, the Metadata fallback for brokers
without DescribeTopicPartitions, the topics' configs), so that command opens one connection.

kafka-python is imported only here and in ``kcli.admin.wire`` (the connections) on the client side:
its response registry is process-global and ``kcli.protocol`` declares the KIP classes once.
"""

from __future__ import annotations

import base64
import logging
import time

from kcli.admin.settings import ClientSettings
from kcli.errors import BrokerRejected, OperationError, UnreadableAnswer, UnsupportedByBroker, UsageError
from kcli.model import (INTERNAL_TOPICS, BrokerError, BrokerInfo, CommittedOffset, ConfigEntry,
                        GroupListing, HeartbeatAnswer, OffsetInfo, PartitionInfo, ProduceOutcome,
                        RecordTime, ResourceConfig,
                        StreamsGroupDescription, StreamsMember, TopicInfo)

logging.getLogger("kafka").addHandler(logging.NullHandler())
logging.getLogger("kafka").propagate = False

PARTITION_LIMIT = 2000
LIST_OFFSETS_ROUNDS = 4                         # the first ask and up to 3 after a leader change
GROUP_ID_NOT_FOUND = 69
COORDINATOR_MOVED = (15, 16)                    # COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR
COORDINATOR_LOADING = 14                        # COORDINATOR_LOAD_IN_PROGRESS: the same one, later
# FindCoordinator asked again for keys answered with these, as librdkafka does: after a pause
# from COORDINATOR_BACKOFF_S doubling to COORDINATOR_BACKOFF_MAX_S, while the deadline leaves
# COORDINATOR_MIN_ROUND_S for one more request after it.
COORDINATOR_RETRIABLE = (COORDINATOR_LOADING, *COORDINATOR_MOVED)
COORDINATOR_BACKOFF_S = 0.1
COORDINATOR_BACKOFF_MAX_S = 1.0
COORDINATOR_MIN_ROUND_S = 0.05
COMMIT_ROUND_S = 0.2                            # an OffsetCommit goes out again only with this much left
# librdkafka's codes for a request sent and not answered (RD_KAFKA_RESP_ERR__TIMED_OUT, __TRANSPORT)
UNANSWERED_CODES = {"_TIMED_OUT": -185, "_TRANSPORT": -195}
# One OffsetCommit becomes one batch of records in __consumer_offsets, which a broker refuses
# (INVALID_COMMIT_OFFSET_SIZE) beyond its max.message.bytes (1 MiB by default): the partitions
# of a group go in requests whose records stay under half of that, by an estimate per record
# (record and key/value framing ~44 bytes, plus the group and topic names).
COMMIT_RECORD_BYTES = 44
COMMIT_BATCH_BYTES = 512 * 1024
RESOURCE_TYPES = {"topic": 2, "broker": 4}     # ConfigResource.Type ids
UNKNOWN_TOPIC_OR_PARTITION = 3
# Kafka's ConfigSource ids (DescribeConfigs v1+), by the names the Java tools print.
CONFIG_SOURCES = ("UNKNOWN_CONFIG", "DYNAMIC_TOPIC_CONFIG", "DYNAMIC_BROKER_CONFIG",
                  "DYNAMIC_DEFAULT_BROKER_CONFIG", "STATIC_BROKER_CONFIG", "DEFAULT_CONFIG",
                  "DYNAMIC_BROKER_LOGGER_CONFIG", "CLIENT_METRICS_CONFIG", "GROUP_CONFIG")
DEFAULT_CONFIG = CONFIG_SOURCES.index("DEFAULT_CONFIG")


def config_node(rtype: str, name: str) -> int | None:
    """The broker a config resource must be asked of or changed on: a broker's own configs
    (and its loggers') only on that broker, as Kafka answers them; a topic's and the cluster-wide
    broker defaults (name "") on any (None: the bootstrap broker)."""
    return int(name) if rtype in ("broker", "broker_logger") and name != "" else None


def kafka_uuid(value) -> str | None:
    """A topic id as Kafka prints it (Uuid.toString: URL-safe base64, no padding)."""
    if value is None or value.int == 0:
        return None
    return base64.urlsafe_b64encode(value.bytes).decode().rstrip("=")


class Backoff:
    """The pauses between rounds of group requests answered with a retriable coordinator error
    (COORDINATOR_RETRIABLE), as librdkafka's: COORDINATOR_BACKOFF_S doubling up to
    COORDINATOR_BACKOFF_MAX_S, while ``end`` (time.monotonic) leaves time for one more round."""

    def __init__(self, end: float, round_s: float = COORDINATOR_MIN_ROUND_S):
        self.end, self.round_s = end, round_s          # ``round_s``: what one more round needs
        self.pause, self.start = COORDINATOR_BACKOFF_S, time.monotonic()

    def wait(self) -> bool:
        """Pause before the next round; False, at once, when ``end`` leaves no time for one."""
        left = self.end - time.monotonic()
        if left < 2 * self.round_s:
            return False
        time.sleep(min(self.pause, left - self.round_s))     # the last round by ``end``
        self.pause = min(2 * self.pause, COORDINATOR_BACKOFF_MAX_S)
        return True


def _unknown_to_describe_groups(answer) -> bool:
    """A DescribeGroups answer (kind, group, node) that says the group is no classic group: not
    found (v6), or Dead without members (before v6)."""
    if answer is None or answer[0] == "missing":
        return True
    return answer[0] == "classic" and answer[1].group_state == "Dead" and not answer[1].members


class KipClient:
    def __init__(self, settings: ClientSettings):
        import kcli.protocol as proto             # first: it lets kafka-python's modules load alone
        from kcli.admin.wire import Wire, WireConfigError, WireTimeout, WireUnreadable

        self.proto = proto
        self.settings = settings
        self._leaders: dict[str, dict[int, int | None]] = {}    # by topic, for this client's life
        self._coordinators: dict[str, int] = {}                  # by group
        self._listed_types: dict[str, str] = {}                  # by group: list_groups' (v5+)
        settings.validate()                       # librdkafka's checks, before connecting
        config = settings.kafka_python_config()
        try:
            self._wire = Wire(config, settings.until)
        except WireConfigError as exc:
            raise UsageError(f"Invalid client configuration: {exc}") from None
        except WireUnreadable as exc:
            raise UnreadableAnswer(exc.answer, str(exc)) from None
        except WireTimeout as exc:
            raise OperationError(f"Cannot reach the cluster at {settings.bootstrap_servers} "
                                 f"within {settings.timeout_ms} ms: {exc}") from None
        except Exception as exc:  # noqa: BLE001 - any failure to connect is one clear line
            raise OperationError(f"Cannot connect to the cluster at {settings.bootstrap_servers}: "
                                 f"{exc}") from None

    def close(self) -> None:
        self._wire.close()

    def max_version(self, request_class) -> int | None:
        """The highest version both sides speak, or None when the broker lacks the API."""
        broker = self._wire.api_versions.get(request_class.API_KEY)
        if broker is None:
            return None
        top = min(broker[1], request_class.max_version)
        return top if top >= broker[0] else None

    def _version(self, request_class, what: str) -> int:
        version = self.max_version(request_class)
        if version is None:
            raise UnsupportedByBroker(f"The broker does not support {what}")
        return version

    def send(self, request, node_id=None, until: float | None = None):
        """The response, by the command's deadline or ``until`` when sooner. A request that went
        out and got no answer (none in time, or the connection dropped) raises BrokerRejected
        with ``_TIMED_OUT`` or ``_TRANSPORT``: its outcome is unknown. One that was not sent (no
        connection, no time left) raises OperationError: nothing was asked of the broker."""
        return self._answered(type(request).__name__, lambda: self._wire.send(request, node_id, until))

    def send_each(self, requests: list[tuple[int, object]]) -> list:
        """The responses to ``requests`` ((node id, request), one per node), all sent before any
        answer is read (Wire.send_each): the brokers answer at once. Errors as ``send``'s."""
        if not requests:
            return []
        return self._answered(type(requests[0][1]).__name__, lambda: self._wire.send_each(requests))

    @staticmethod
    def _answered(name: str, call):
        """``call()``'s response, its wire errors as ``send`` words them for request ``name``."""
        from kcli.admin.wire import WireError, WireTimeout, WireUnreadable

        try:
            return call()
        except WireUnreadable as exc:
            raise UnreadableAnswer(exc.answer, str(exc), name) from None
        except WireError as exc:
            message = f"{name} failed: {exc}"
            if not exc.sent:
                raise OperationError(message) from None
            name = "_TIMED_OUT" if isinstance(exc, WireTimeout) else "_TRANSPORT"
            raise BrokerRejected(BrokerError(UNANSWERED_CODES[name], name, message)) from None
        except Exception as exc:  # noqa: BLE001
            raise OperationError(f"{name} failed: {exc}") from None

    # -- KIP-1327 -------------------------------------------------------------------------
    def describe_topic_partitions(self, names: list[str], progress=None) -> list[TopicInfo]:
        """DescribeTopicPartitions page by page; ``progress`` (done, total) counts the topics."""
        Req = self.proto.DescribeTopicPartitionsRequest
        version = self._version(Req, "DescribeTopicPartitions")
        by_name: dict[str, TopicInfo] = {}
        cursor = None
        pending = list(names)
        for _ in range(100_000):  # bounded: each round returns at least one partition or ends
            req = Req(version=version, topics=[Req.TopicRequest(name=n) for n in pending],
                      response_partition_limit=PARTITION_LIMIT, cursor=cursor)
            resp = self.send(req)
            for t in resp.topics:
                if t.error_code:
                    raise OperationError(f"Topic '{t.name}': {_error_name(t.error_code)}")
                info = by_name.setdefault(t.name, TopicInfo(t.name, kafka_uuid(t.topic_id), []))
                for p in t.partitions:
                    info.partitions.append(PartitionInfo(
                        partition=p.partition_index,
                        leader=p.leader_id if p.leader_id >= 0 else None,
                        replicas=list(p.replica_nodes), isr=list(p.isr_nodes),
                        elr=list(p.eligible_leader_replicas or []),
                        last_known_elr=list(p.last_known_elr or []),
                        creation_time_ms=p.creation_time_ms if version >= 1 else None,
                        leader_epoch=p.leader_epoch))
            if resp.next_cursor is None:
                break
            if progress is not None:
                progress(names.index(resp.next_cursor.topic_name), len(names))
            cursor = Req.Cursor(topic_name=resp.next_cursor.topic_name,
                                partition_index=resp.next_cursor.partition_index)
            pending = names[names.index(resp.next_cursor.topic_name):]
        for info in by_name.values():
            info.partitions.sort(key=lambda p: p.partition)
        return [by_name[n] for n in names if n in by_name]

    # -- describe topics: the rest of what it needs, on the same connection ---------------
    def _metadata(self, topics: list[str] | None, version: int | None = None):
        """One Metadata request (every topic for None), never creating a topic."""
        Req = self.proto.MetadataRequest
        topics_field = None if topics is None else [Req.MetadataRequestTopic(name=t) for t in topics]
        return self.send(Req(version=self._version(Req, "Metadata") if version is None else version,
                             topics=topics_field, allow_auto_topic_creation=False,
                             include_topic_authorized_operations=False))

    def topic_names(self) -> list[str]:
        return sorted(t.name for t in self._metadata(None).topics)

    def cluster_id(self) -> str | None:
        """From a Metadata request for no topic (None below v2, which has no cluster id)."""
        return getattr(self._metadata([]), "cluster_id", None)

    def broker_ids(self) -> list[int]:
        """The live brokers: those in the cluster metadata (whose addresses the connections to
        them then use: no second Metadata)."""
        brokers = self._metadata([]).brokers
        self._wire.learn_addresses({b.node_id: (b.host, b.port) for b in brokers})
        return sorted(b.node_id for b in brokers)

    def describe_topics(self, names: list[str], progress=None) -> list[TopicInfo]:
        """DescribeTopicPartitions (v1 when offered: CreationTimeMs; None below v1); on brokers
        without it (before 3.8) Metadata, so ELR is N/A and CreationTimeMs is not reported at all
        (KIP-1327: the field is omitted)."""
        try:
            topics = self.describe_topic_partitions(names, progress)
        except UnsupportedByBroker:
            topics = self._describe_topics_by_metadata(names)
        for t in topics:
            t.internal = t.name in INTERNAL_TOPICS
        return topics

    def _describe_topics_by_metadata(self, names: list[str]) -> list[TopicInfo]:
        found = {t.name: t for t in self._metadata(names).topics}
        out = []
        for name in names:
            t = found.get(name)
            if t is None or t.error_code:
                raise OperationError(f"Topic '{name}': "
                                     f"{_error_name(t.error_code if t else UNKNOWN_TOPIC_OR_PARTITION)}")
            out.append(TopicInfo(name, kafka_uuid(getattr(t, "topic_id", None)), [
                PartitionInfo(p.partition_index, p.leader_id if p.leader_id >= 0 else None,
                              list(p.replica_nodes), list(p.isr_nodes), leader_epoch=p.leader_epoch)
                for p in sorted(t.partitions, key=lambda p: p.partition_index)]))
        return out

    def describe_configs(self, resources: list[tuple[str, str]], synonyms: bool = False) -> list[ResourceConfig]:
        """Every config of each ("topic" | "broker", name) resource, in the broker's order (the
        Java tools' orders follow it), with synonyms when asked: one DescribeConfigs per broker
        asked (config_node), the results in the order of ``resources``."""
        from kafka.protocol.admin.configs import DescribeConfigsRequest as Req

        version = self._version(Req, "DescribeConfigs")
        by_node: dict[int | None, list[tuple[str, str]]] = {}
        for rtype, name in resources:
            by_node.setdefault(config_node(rtype, name), []).append((rtype, name))
        results = {}
        for node, asked in by_node.items():
            resp = self.send(Req(version=version, include_synonyms=synonyms and version >= 1,
                                 include_documentation=False,
                                 resources=[Req.DescribeConfigsResource(
                                     resource_type=RESOURCE_TYPES[rtype], resource_name=name,
                                     configuration_keys=None) for rtype, name in asked]), node)
            results.update({(r.resource_type, r.resource_name): r for r in resp.results})
        kinds = {code: kind for kind, code in RESOURCE_TYPES.items()}
        out = []
        for r in (results[(RESOURCE_TYPES[rtype], name)] for rtype, name in resources
                  if (RESOURCE_TYPES[rtype], name) in results):
            kind = kinds.get(r.resource_type, "topic")
            if r.error_code:
                raise OperationError(f"Cannot describe configs of {kind} '{r.resource_name}': "
                                     f"{r.error_message or _error_name(r.error_code)}")
            entries = [ConfigEntry(c.name, c.value, _config_source(c.config_source),
                                   c.config_source == DEFAULT_CONFIG if version else c.is_default,
                                   c.is_sensitive, c.read_only,
                                   [(y.name, y.value, _config_source(y.source))
                                    for y in (getattr(c, "synonyms", None) or [])])
                       for c in r.configs]
            out.append(ResourceConfig(kind, r.resource_name, entries))
        return out

    # -- groups: coordinators -------------------------------------------------------------
    def find_coordinators(self, group_ids: list[str], until: float | None = None) -> dict[str, int]:
        """Coordinator node id per group: one FindCoordinator for the groups this client has not
        asked about yet (v4+ batches every key; older versions take one request per group), by
        ``until`` when given (see ``send``), else the command's deadline. Keys answered with a
        retriable coordinator error (COORDINATOR_NOT_AVAILABLE: a fresh cluster until
        __consumer_offsets exists; COORDINATOR_LOAD_IN_PROGRESS; NOT_COORDINATOR) are asked
        again after a pause that doubles from COORDINATOR_BACKOFF_S up to COORDINATOR_BACKOFF_MAX_S
        (librdkafka's retry.backoff.ms and retry.backoff.max.ms), until that deadline; then one
        OperationError names the groups still without a coordinator."""
        from kafka.errors import for_code
        from kafka.protocol.metadata import FindCoordinatorRequest as Req

        found = {g: self._coordinators[g] for g in group_ids if g in self._coordinators}
        pending = [g for g in dict.fromkeys(group_ids) if g not in found]
        if not pending:
            return found
        version = self.max_version(Req)
        if version is None:
            raise UnsupportedByBroker("The broker does not support FindCoordinator")
        backoff = Backoff(self.settings.until() if until is None else until)
        while True:                                # bounded by the deadline (Backoff)
            answers = self._find_coordinators_once(Req, version, pending, backoff.end)
            # a key the answer leaves out is asked again, as Java's admin client does
            answered = {key for key, _, _ in answers}
            retry: dict[str, int | None] = {key: None for key in pending if key not in answered}
            for key, code, node in answers:
                if code in COORDINATOR_RETRIABLE:
                    retry[key] = code
                elif code:
                    raise OperationError(f"Cannot find the coordinator of group '{key}': "
                                         f"{for_code(code).description}")
                else:
                    found[key] = self._coordinators[key] = node
            if not retry:
                return found
            if not backoff.wait():
                when = (f"before the command's deadline (--timeout {self.settings.timeout_ms} ms) passed"
                        if until is None else f"in the {round((time.monotonic() - backoff.start) * 1000)} ms kcli waited")
                raise OperationError(_coordinators_not_found(retry, when))
            pending = list(retry)

    def _find_coordinators_once(self, Req, version: int, group_ids: list[str], until: float):
        """(key, error code, node id) per group from one FindCoordinator (v4+) or one per group."""
        if version >= 4:
            resp = self.send(Req(version=version, key_type=0, coordinator_keys=list(group_ids)), until=until)
            return [(c.key, c.error_code, c.node_id) for c in resp.coordinators]
        answers = []
        for g in group_ids:
            resp = self.send(Req(version=version, key=g, key_type=0) if version >= 1
                             else Req(version=version, key=g), until=until)
            answers.append((g, resp.error_code, resp.node_id))
        return answers

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

    def describe_consumer_groups_v2(self, group_ids: list[str]) -> dict[str, object]:
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

    def _describe_per_coordinator(self, group_ids: list[str], request, what: str):
        """``request(groups)`` to each coordinator of ``group_ids``, one per coordinator; the
        groups answered with a retriable coordinator error are asked again until the deadline
        (Backoff), then OperationError naming them. Returns ({group: (node, answer)} without
        error, {group: answer} with another error)."""
        answered, failed = {}, {}
        pending = list(dict.fromkeys(group_ids))
        backoff = Backoff(self.settings.until())
        while True:                                # bounded by the deadline (Backoff)
            moved = []
            for node, groups in self._by_coordinator(pending).items():
                for g in self.send(request(groups), node).groups:
                    if not g.error_code:
                        answered[g.group_id] = (node, g)
                    elif self._retriable(g.group_id, g.error_code):
                        moved.append(g.group_id)
                    else:
                        failed[g.group_id] = g
            if not moved:
                return answered, failed
            if not backoff.wait():
                raise OperationError(f"Cannot describe {what} '{moved[0]}'"
                                     + (f" (and {len(moved) - 1} more groups)" if len(moved) > 1 else "")
                                     + f" before the command's deadline (--timeout {self.settings.timeout_ms} ms) "
                                       "passed: its coordinator was not available (retried)")
            pending = moved

    # -- listing groups: one ListGroups per broker ----------------------------------------
    def _listed_groups(self, what: str, min_version: int = 0, **filters):
        """(node, listed group) from every live broker's ListGroups answer (each names the groups
        it coordinates) at the highest common version, ``filters`` (states_filter, types_filter)
        from the version that has them; None without ListGroups ``min_version``. A broker's error
        code fails the list: it would not be the cluster's."""
        from kafka.errors import for_code
        from kafka.protocol.admin.groups import ListGroupsRequest as Req

        version = self.max_version(Req)
        if version is None or version < min_version:
            return None
        fields = {k: v for k, v, since in (("states_filter", filters.get("states_filter", []), 4),
                                           ("types_filter", filters.get("types_filter", []), 5)) if version >= since}
        listed = []
        nodes = self.broker_ids()
        for node, resp in zip(nodes, self.send_each([(node, Req(version=version, **fields)) for node in nodes])):
            if resp.error_code:
                raise OperationError(f"Cannot list {what} on broker {node}: {for_code(resp.error_code).description}")
            listed += [(node, g) for g in resp.groups]
        return listed

    def list_groups(self) -> list[tuple[str, str | None, str | None]]:
        """(group id, state or None, type or None) of every consumer group, sorted by id: the
        groups of protocol type "consumer", or "" (a group that only commits offsets), classic
        and consumer-protocol alike, as librdkafka's ListConsumerGroups selects them; the state
        from ListGroups v4, the type from v5. One ListGroups per live broker."""
        found = {}
        for node, g in self._listed_groups("consumer groups") or []:
            if g.protocol_type in ("", "consumer"):
                found[g.group_id] = (g.group_id, getattr(g, "group_state", None), getattr(g, "group_type", None))
                # the broker that lists a group coordinates it: no FindCoordinator for 10k keys
                # (a group that moved since answers NOT_COORDINATOR and is looked up then)
                self._coordinators[g.group_id] = node
                if getattr(g, "group_type", None):
                    self._listed_types[g.group_id] = g.group_type.lower()
        return [found[g] for g in sorted(found)]

    # -- streams groups (KIP-1071; creation time KIP-1282 on StreamsGroupDescribe v2) -------
    def list_streams_groups(self) -> list[GroupListing]:
        """The streams groups: ListGroups v5+ (TypesFilter ["streams"]) to every live broker,
        each answering for the groups it coordinates; sorted by id. None on a broker without
        ListGroups v5 (no streams groups there)."""
        found = {g.group_id: GroupListing(g.group_id, g.group_state or "Unknown", "Streams")
                 for _, g in self._listed_groups("streams groups", 5, types_filter=["streams"]) or []}
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
        brokers = {b.node_id: b for b in self._metadata([]).brokers} if answered else {}
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
            raise OperationError(f"org.apache.kafka.common.errors.GroupIdNotFoundException: Group {group_id} not found.")
        return self.TOPOLOGY_STATUS.get(g.topology_description_status, str(g.topology_description_status))

    def _retriable(self, group_id: str, code: int) -> bool:
        """True for a retriable coordinator error (COORDINATOR_RETRIABLE): the group is asked
        again, of its coordinator found anew when it moved (``_forget_moved``)."""
        return self._forget_moved(group_id, code) or code == COORDINATOR_LOADING

    def _forget_moved(self, group_id: str, code: int) -> bool:
        """After NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE, the next request finds the group's
        coordinator again. True when the code was one of them."""
        if code in COORDINATOR_MOVED:
            self._coordinators.pop(group_id, None)
            return True
        return False

    # -- KIP-1327: partition age ----------------------------------------------------------
    def partition_ages(self, topics: list[str]) -> dict[tuple[str, int], int]:
        """PartitionAgeMs per partition (-1 unknown) from one Metadata v14 request."""
        Req = self.proto.MetadataRequest
        version = self.max_version(Req)
        if version is None or version < 14:
            raise UnsupportedByBroker(
                "The broker does not support Metadata v14 (PartitionAgeMs, KIP-1327), which "
                "--max-age needs; nothing was reset")
        resp = self._metadata(topics, version=14)
        return {(t.name, p.partition_index): p.partition_age_ms
                for t in resp.topics for p in t.partitions}

    # -- lag in time: the next record's timestamp, one bounded Fetch per leader ----------
    def record_times(self, wanted: list[tuple[str, int, int]],
                     leaders: dict[tuple[str, int], int | None]) -> dict[tuple[str, int, int], RecordTime]:
        """The first record at or after each (topic, partition, offset) of ``wanted`` that a
        read_committed consumer positioned there reads (transaction markers and aborted
        records are passed over, as it passes over them): one Fetch per leader, at most
        FETCH_PARTITION_BYTES of each partition (records decoded by kafka-python's record reader). A partition appears once per request, so a partition
        wanted at several offsets takes one more request per offset beyond the first (by
        layers); a partition the broker answered without data (the response's byte limit, its
        own ``fetch.max.bytes`` or ours, was reached) is asked again in the next round, and one
        whose answer held only markers and aborted records is asked again past them. Needs
        Fetch v4+ (every Kafka 4 broker), sent at v12 at most (topics by name)."""
        from kafka.errors import for_code
        from kafka.protocol.consumer.fetch import FetchRequest as Req

        version = self.max_version(Req)
        if version is None or version < 4:
            raise UnsupportedByBroker("The broker does not support Fetch v4+, which lag in time needs")
        version = min(version, 12)
        layers: list[dict[tuple[str, int], int]] = []
        for t, p, offset in dict.fromkeys(wanted):
            layer = next((lay for lay in layers if (t, p) not in lay), None)
            if layer is None:
                layers.append(layer := {})
            layer[(t, p)] = offset
        found: dict[tuple[str, int, int], RecordTime] = {}
        for layer in layers:
            # per partition: (the offset asked about, where the next Fetch reads from: past the
            # markers and aborted batches a previous answer held)
            pending = {tp: (o, o) for tp, o in layer.items()}
            for _ in range(len(layer) + ROUNDS_PAST_SKIPPED):      # bounded: see ROUNDS_PAST_SKIPPED
                answered = 0
                by_node: dict[int, list[tuple[str, int]]] = {}
                for tp, (offset, _) in pending.items():
                    node = leaders.get(tp)
                    if node is None:
                        found[(*tp, offset)] = RecordTime(*tp, offset, error="no leader")
                    else:
                        by_node.setdefault(node, []).append(tp)
                for node, tps in by_node.items():
                    resp = self.send(_fetch_request(Req, version, [(tp, pending[tp][1]) for tp in tps]), node)
                    for topic in resp.responses:
                        for part in topic.partitions:
                            tp = (topic.topic, part.partition_index)
                            if tp not in pending:
                                continue
                            offset, start = pending[tp]
                            rt = _record_time(tp, offset, start, part, for_code)
                            if isinstance(rt, int):             # only skipped batches: read on from rt
                                pending[tp] = (offset, rt)
                                answered += 1
                            elif rt is not None:
                                found[(*tp, offset)] = rt
                                answered += 1
                pending = {tp: o for tp, o in pending.items() if (*tp, o[0]) not in found}
                if not pending or not answered:
                    break
            for tp, (offset, start) in pending.items():
                found[(*tp, offset)] = RecordTime(*tp, offset, error="the broker returned no records" if start == offset
                                                  else f"only transaction markers and aborted records "
                                                       f"from offset {offset} to {start}, read no further")
        return found

    # -- committed offsets and log offsets on kcli's own connections -----------------------
    # librdkafka's admin calls for these grow faster than the partitions (ListOffsets 0.9 s at
    # 10k and 10.3 s at 40k partitions, bench/reset_scale.py); one request per coordinator or
    # leader here is linear.
    def committed_offsets(self, group_id: str,
                          partitions: list[tuple[str, int]] | None = None) -> list[CommittedOffset]:
        """OffsetFetch (v7 at most: topics by name) from the group's coordinator: the given
        partitions (an entry for each, offset None where nothing is committed), or every partition
        with a commit for None; a group the coordinator does not know has none. Over this
        client's own connection, so it also answers while librdkafka's connection to the same
        broker waits on a request that never returns (the read-back after an unanswered commit)."""
        from kafka.protocol.consumer.group import OffsetFetchRequest as Req

        version = self.max_version(Req)
        if version is None or version < 2:
            raise UnsupportedByBroker("The broker does not support OffsetFetch v2+")
        version = min(version, 7)
        topics = None
        if partitions is not None:
            topics = [Req.OffsetFetchRequestTopic(name=t, partition_indexes=ps)
                      for t, ps in _by_topic(partitions).items()]
        backoff = Backoff(self.settings.until())
        while True:                                # bounded by the deadline (Backoff)
            node = self.find_coordinators([group_id])[group_id]
            resp = self.send(Req(version=version, group_id=group_id, topics=topics), node)
            if not self._retriable(group_id, resp.error_code) or not backoff.wait():
                break
        return _committed(group_id, resp.error_code, resp.topics, every=partitions is None)

    def committed_offsets_of_groups(self, group_ids: list[str], partitions: dict[str, list[tuple[str, int]]] | None = None
                                    ) -> dict[str, list[CommittedOffset]]:
        """Every partition with a commit, per group, or with ``partitions`` the group's partitions
        named there (an entry for each, offset None where nothing is committed; a group not named
        there: every partition with a commit), as ``committed_offsets``: one OffsetFetch v8+
        (many groups, KIP-709) per coordinator, whatever the number of groups; a broker without
        v8 (before Kafka 3.0) is asked one OffsetFetch per group. Groups answered with a retriable coordinator error
        (moved, not available, loading) are asked again until the deadline (Backoff)."""
        from kafka.protocol.consumer.group import OffsetFetchRequest as Req

        version = self.max_version(Req)
        named = partitions or {}
        if version is None or version < 8:
            return {g: self.committed_offsets(g, named.get(g)) if named.get(g) != [] else [] for g in group_ids}
        version = min(version, 8)                  # v10 names topics by id; v9 adds member fields
        answers: dict[str, object] = {}           # the last answer per group
        pending = [g for g in dict.fromkeys(group_ids) if named.get(g) != []]
        backoff = Backoff(self.settings.until())
        while pending:                             # bounded by the deadline (Backoff)
            moved = []
            for node, groups in self._by_coordinator(pending).items():
                resp = self.send(Req(version=version, require_stable=False, groups=[
                    Req.OffsetFetchRequestGroup(group_id=g, topics=None if named.get(g) is None else [
                        Req.OffsetFetchRequestGroup.OffsetFetchRequestTopics(name=t, partition_indexes=ps)
                        for t, ps in _by_topic(named[g]).items()]) for g in groups]), node)
                asked = set(groups)
                for g in resp.groups:
                    if g.group_id in asked:
                        answers[g.group_id] = g
                        if self._retriable(g.group_id, g.error_code):
                            moved.append(g.group_id)
            if not moved or not backoff.wait():
                break
            pending = moved
        return {g: _committed(g, answers[g].error_code, answers[g].topics, every=named.get(g) is None)
                if g in answers else [] for g in group_ids}

    def _by_coordinator(self, group_ids: list[str]) -> dict[int, list[str]]:
        """The groups per coordinator node (one batched FindCoordinator for those not known yet)."""
        by_node: dict[int, list[str]] = {}
        for g, node in self.find_coordinators(group_ids).items():
            by_node.setdefault(node, []).append(g)
        return by_node

    # -- describe groups: one request per coordinator, whatever the number of groups ----------
    def describe_groups(self, group_ids: list[str]) -> tuple[dict[str, tuple[str, object, int]], dict[int, BrokerInfo]]:
        """({group id: (kind, described group, coordinator node)}, {node: BrokerInfo}): kind
        "consumer" from ConsumerGroupDescribe (when the broker has it), then "classic" from
        DescribeGroups for the groups it did not describe, each one request per coordinator;
        "missing" (group None) for a group neither knows, "error" (the group's error answer)
        for one a coordinator refused. Groups answered with a retriable coordinator error
        (moved, not available, loading) are asked again until the deadline (Backoff)."""
        from kafka.protocol.admin.groups import DescribeGroupsRequest as Describe

        Consumer = self.proto.ConsumerGroupDescribeRequest
        cgd, dg = self.max_version(Consumer), self._version(Describe, "DescribeGroups")
        out: dict[str, tuple[str, object, int]] = {}
        pending = list(dict.fromkeys(group_ids))
        backoff = Backoff(self.settings.until())
        while True:                                # bounded by the deadline (Backoff)
            moved: set[str] = set()
            refused: dict[str, tuple] = {}         # ConsumerGroupDescribe's retriable answers
            by_node = self._by_coordinator(pending)

            def consumer(asked: dict[int, list[str]]) -> None:
                """ConsumerGroupDescribe of ``asked`` (groups per node), all nodes at once."""
                asked = {node: groups for node, groups in asked.items() if groups}
                requests = [(node, Consumer(version=cgd, group_ids=groups, include_authorized_operations=False))
                            for node, groups in asked.items()] if cgd is not None else []
                for (node, _), resp in zip(requests, self.send_each(requests)):
                    for g in resp.groups:
                        if not g.error_code:
                            out[g.group_id] = ("consumer", g, node)
                        elif self._retriable(g.group_id, g.error_code):
                            moved.add(g.group_id)     # asked again: DescribeGroups may not know it
                            refused[g.group_id] = (g, node)

            # Groups this client listed as classic go to DescribeGroups alone: 10k classic
            # groups' ConsumerGroupDescribe errors were a third of the decoding.
            first = {node: [g for g in groups if self._listed_types.get(g) != "classic"] for node, groups in by_node.items()}
            consumer(first)
            rest = {node: [g for g in groups if g not in out] for node, groups in by_node.items()}
            requests = [(node, Describe(version=dg, groups=groups, include_authorized_operations=False))
                        for node, groups in rest.items() if groups]
            for (node, req), resp in zip(requests, self.send_each(requests)):
                asked = set(req.groups)
                for g in resp.groups:
                    if g.group_id not in asked:
                        continue
                    if self._retriable(g.group_id, g.error_code):
                        moved.add(g.group_id)
                    if g.error_code == GROUP_ID_NOT_FOUND:
                        out[g.group_id] = ("missing", None, node)
                    else:
                        out[g.group_id] = ("error" if g.error_code else "classic", g, node)
            # one listed as classic that DescribeGroups no longer knows (not found, or Dead
            # without members below v6) may have become a consumer group since the listing
            listed_classic = {g for groups in by_node.values() for g in groups} - {g for gs in first.values() for g in gs}
            consumer({node: [g for g in groups if g in listed_classic and _unknown_to_describe_groups(out.get(g))]
                      for node, groups in rest.items()})
            if not moved or not backoff.wait():    # at the deadline: their error answers stay
                for g, answer in refused.items():  # not "missing": DescribeGroups knows no consumer group
                    if out.get(g, ("missing",))[0] == "missing":
                        out[g] = ("error", *answer)
                break
            pending = [g for g in pending if g in moved]
            for g in pending:
                out.pop(g, None)
        brokers = {b.node_id: BrokerInfo(b.node_id, b.host, b.port) for b in self._metadata([]).brokers}
        return out, brokers

    def partition_leaders(self, topics: list[str], refresh: bool = False) -> dict[str, dict[int, int | None]]:
        """Leader per partition (None: no leader) of the named topics that exist: one Metadata
        (v13 at most: v14's tagged PartitionAgeMs is not needed here) for the topics this client
        has not asked about yet, or all of them with ``refresh`` (after a leader change)."""
        wanted = sorted(set(topics) if refresh else set(topics) - set(self._leaders))
        if wanted:
            self._learn_leaders(wanted)
        return {t: self._leaders[t] for t in topics if t in self._leaders}

    def partition_counts(self) -> dict[str, int]:
        """Partition count per topic, every topic: one Metadata, whose leaders are remembered."""
        return {t: len(parts) for t, parts in self._learn_leaders(None).items()}

    def _learn_leaders(self, topics: list[str] | None) -> dict[str, dict[int, int | None]]:
        """Metadata (v13 at most: v14's tagged PartitionAgeMs is not needed here) for ``topics``
        (None: every topic); the leaders of the topics it describes, remembered."""
        Req = self.proto.MetadataRequest
        resp = self._metadata(topics, version=min(self._version(Req, "Metadata"), 13))
        learned = {t.name: {p.partition_index: (p.leader_id if p.leader_id >= 0 else None) for p in t.partitions}
                   for t in resp.topics if not t.error_code}
        self._leaders.update(learned)
        return learned

    # ListOffsets: the version each special timestamp needs, and what needs it
    LIST_OFFSETS_NEEDS = {-3: (7, "--max-timestamp (KIP-734)"), -4: (8, "--time -4"),
                          -5: (9, "--time -5"), -6: (11, "--time -6")}

    def list_offsets(self, partitions: list[tuple[str, int]], timestamp: int) -> list[OffsetInfo]:
        """ListOffsets to each partition's leader, one request per leader: -1 latest, -2 earliest,
        -3 max timestamp (KIP-734), -4/-5/-6 the tiered-storage offsets, else the first offset at
        or after ``timestamp`` (epoch ms). The partitions a leader change answered with a
        retriable error are asked again after a new Metadata, a few times within the deadline;
        an error, or no answer from a leader in time, is the partition's ``error``."""
        from kafka.errors import for_code
        from kafka.protocol.consumer.offsets import ListOffsetsRequest as Req

        from kcli.admin.wire import WireError, WireUnreadable

        needed, what = self.LIST_OFFSETS_NEEDS.get(timestamp, (1, ""))
        version = self.max_version(Req)
        if version is None or version < needed:
            raise UnsupportedByBroker(f"The broker does not support ListOffsets v{needed}, which {what} needs"
                                      if what else "The broker does not support ListOffsets v1+")
        P = Req.ListOffsetsTopic.ListOffsetsPartition
        found: dict[tuple[str, int], OffsetInfo] = {}
        pending = list(dict.fromkeys(partitions))
        for attempt in range(LIST_OFFSETS_ROUNDS):
            leaders = self.partition_leaders(sorted({t for t, _ in pending}), refresh=attempt > 0)
            by_leader: dict[int, dict[str, list[int]]] = {}
            for t, p in pending:
                leader = leaders.get(t, {}).get(p, -1)
                if leader is None or leader < 0:
                    error = ("There is no leader for this topic-partition" if leader is None
                             else for_code(UNKNOWN_TOPIC_OR_PARTITION).description)
                    found[(t, p)] = OffsetInfo(t, p, -1, error=error)
                else:
                    by_leader.setdefault(leader, {}).setdefault(t, []).append(p)
            retry = []
            for leader, topic_parts in sorted(by_leader.items()):
                req = Req(version=version, replica_id=-1, isolation_level=0,
                          timeout_ms=self.settings.timeout_ms, topics=[
                              Req.ListOffsetsTopic(name=t, partitions=[
                                  P(partition_index=p, current_leader_epoch=-1, timestamp=timestamp)
                                  for p in ps]) for t, ps in topic_parts.items()])
                try:
                    resp = self._wire.send(req, leader)
                except WireUnreadable as exc:
                    raise UnreadableAnswer(exc.answer, str(exc), type(req).__name__) from None
                except WireError as exc:
                    error = f"No answer from broker {leader}: {exc}"
                    for t, ps in topic_parts.items():
                        found.update({(t, p): OffsetInfo(t, p, -1, error=error, unanswered=True) for p in ps})
                    continue
                for t in resp.topics:
                    for p in t.partitions:
                        tp = (t.name, p.partition_index)
                        if p.error_code and for_code(p.error_code).retriable and attempt + 1 < LIST_OFFSETS_ROUNDS:
                            retry.append(tp)
                        elif p.error_code:
                            found[tp] = OffsetInfo(*tp, -1, error=for_code(p.error_code).description)
                        else:
                            epoch = getattr(p, "leader_epoch", -1)           # v4+
                            found[tp] = OffsetInfo(*tp, p.offset, p.timestamp if timestamp == -3 or timestamp >= 0
                                                   else None, epoch if epoch >= 0 else None)
            if not retry or self.settings.remaining_s() < 0.2:
                for tp in retry:
                    found.setdefault(tp, OffsetInfo(*tp, -1, error="The leader did not settle in time"))
                break
            pending = retry
            time.sleep(0.1 * (attempt + 1))
        return sorted(found.values(), key=lambda o: (o.topic, o.partition))

    # -- reset-offsets --execute: OffsetCommit as an admin -------------------------------
    def commit_offsets(self, group_id: str, offsets: dict[tuple[str, int], int],
                       until: float | None = None) -> dict[tuple[str, int], BrokerError | None]:
        """OffsetCommit of ``offsets`` for a group without members, as an admin client sends it
        (Java's Admin.alterConsumerGroupOffsets, librdkafka's alter_consumer_group_offsets):
        generation -1, member id "", no group instance id, metadata "". One request per batch of
        partitions (COMMIT_BATCH_BYTES) to the group's coordinator, at v9 at most (v10 names
        topics by id), each by ``until`` (time.monotonic; default the command's deadline) so
        that time is left to read back what got no answer. The error (or None) per partition:
        the broker's code; ``_TIMED_OUT``/``_TRANSPORT`` for a request sent and not answered
        (unknown); ``_NOT_SENT`` for one that never went out (not applied). Partitions refused
        because the coordinator moved, is not available or is loading are committed again, to
        the coordinator found anew, after Backoff's pauses while ``until`` allows."""
        from kafka.protocol.consumer.group import OffsetCommitRequest as Req

        version = self.max_version(Req)
        if version is None or version < 2:
            raise UnsupportedByBroker("The broker does not support OffsetCommit v2+")
        version = min(version, 9)
        out: dict[tuple[str, int], BrokerError | None] = {}
        for batch in commit_batches(group_id, offsets):
            out.update(self._commit_batch(Req, version, group_id, batch, until))
        return out

    def _commit_batch(self, Req, version: int, group_id: str, batch: dict[tuple[str, int], int],
                      until: float | None) -> dict[tuple[str, int], BrokerError | None]:
        from kafka.errors import for_code

        Topic = Req.OffsetCommitRequestTopic
        Partition = Topic.OffsetCommitRequestPartition
        out: dict[tuple[str, int], BrokerError | None] = {}
        pending = batch
        backoff = Backoff(until or self.settings.until(), COMMIT_ROUND_S)
        while True:                                # bounded by ``until`` (Backoff)
            req = Req(version=version, group_id=group_id, generation_id_or_member_epoch=-1, member_id="",
                      group_instance_id=None, retention_time_ms=-1, topics=[
                          Topic(name=t, partitions=[Partition(partition_index=p, committed_offset=pending[(t, p)],
                                                              committed_leader_epoch=-1, committed_metadata="")
                                                    for p in ps])
                          for t, ps in _by_topic(pending).items()])
            try:
                node = self.find_coordinators([group_id], until=until)[group_id]
            except UnreadableAnswer:              # not sent: librdkafka may send it (kcli.admin.fallback)
                raise
            except OperationError as exc:         # no coordinator: the commit did not go out
                out.update({tp: _not_sent(exc) for tp in pending})
                break
            try:
                resp = self.send(req, node, until=until)
            except UnreadableAnswer:               # answered: librdkafka commits the same offsets again
                raise
            except BrokerRejected as exc:          # sent and not answered: its outcome is unknown
                out.update({tp: exc.error for tp in pending})
                break
            except OperationError as exc:          # not sent
                out.update({tp: _not_sent(exc) for tp in pending})
                break
            retry = {}
            for t in resp.topics:
                for p in t.partitions:
                    tp = (t.name, p.partition_index)
                    if tp not in pending:
                        continue
                    code = p.error_code
                    out[tp] = BrokerError(code, for_code(code).message, for_code(code).description) if code else None
                    if self._retriable(group_id, code):
                        retry[tp] = pending[tp]
            for tp in pending:
                out.setdefault(tp, BrokerError(UNANSWERED_CODES["_TRANSPORT"], "_TRANSPORT",
                                               f"the OffsetCommit answer did not mention {tp[0]}-{tp[1]}"))
            if not retry or not backoff.wait():
                break
            pending = retry
        return out

    # -- delete-offsets (OffsetDelete; no client library exposes it) ---------------------
    def delete_offsets(self, group_id: str, partitions: list[tuple[str, int]]) -> tuple:
        """(group-level BrokerError or None, {(topic, partition): BrokerError or None})."""
        from kafka.errors import for_code
        from kafka.protocol.consumer.group import OffsetDeleteRequest as Req

        version = self.max_version(Req)
        if version is None:
            raise UnsupportedByBroker("The broker does not support OffsetDelete")
        try:
            node = self.find_coordinators([group_id])[group_id]
        except OperationError as exc:       # even unanswered: the OffsetDelete did not go out
            raise OperationError(f"OffsetDelete not sent: {exc}") from None
        topics = _by_topic(partitions)
        req = Req(version=version, group_id=group_id, topics=[
            Req.OffsetDeleteRequestTopic(name=t, partitions=[
                Req.OffsetDeleteRequestTopic.OffsetDeleteRequestPartition(partition_index=p)
                for p in ps]) for t, ps in topics.items()])
        resp = self.send(req, node)

        def error(code):
            return BrokerError(code, for_code(code).message, for_code(code).description) if code else None

        per = {(t.name, p.partition_index): error(p.error_code) for t in resp.topics for p in t.partitions}
        return error(resp.error_code), per


    # -- check broker: one Produce of a batch, a heartbeat, the advertised versions -------------
    def advertised_version(self, api_key: int) -> int | None:
        """The highest version of ``api_key`` the broker advertises (ApiVersions), None without it."""
        broker = self._wire.api_versions.get(api_key)
        return None if broker is None else broker[1]

    def produce_batch(self, topic: str, partition: int,
                      records: list[tuple[int, bytes | None, bytes | None]]) -> ProduceOutcome:
        """One v2 record batch of (timestamp, key, value), uncompressed, produced with acks=-1 to
        the partition's leader (Produce v3..v12: topics by name), and the broker's answer: the
        error and its message (v8+), the KIP-467 record errors, the base offset."""
        from kafka.errors import for_code
        from kafka.record import MemoryRecordsBuilder

        Req = self.proto.REQUESTS[0]
        version = self.max_version(Req)
        if version is None or version < 3:
            raise UnsupportedByBroker("The broker does not support Produce v3+ (record batches)")
        version = min(version, 12)
        builder = MemoryRecordsBuilder(magic=2, compression_type=0, batch_size=1 << 20)
        for ts, key, value in records:
            builder.append(ts, key, value)
        builder.close()
        leader = self.partition_leaders([topic], refresh=True).get(topic, {}).get(partition)
        if leader is None:
            raise OperationError(f"{topic}-{partition} has no leader")
        T = Req.TopicProduceData
        req = Req(version=version, transactional_id=None, acks=-1, timeout_ms=self.settings.timeout_ms,
                  topic_data=[T(name=topic, partition_data=[
                      T.PartitionProduceData(index=partition, records=bytes(builder.buffer()))])])
        p = self.send(req, leader).responses[0].partition_responses[0]
        return ProduceOutcome(for_code(p.error_code).message if p.error_code else None,
                              getattr(p, "error_message", None),
                              [(e.batch_index, e.batch_index_error_message)
                               for e in (getattr(p, "record_errors", None) or [])], p.base_offset)

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
                             subscribed_topic_names=topics, server_assignor=None, topic_partitions=[] if epoch == 0 else None),
                         node)
        self._forget_moved(group_id, resp.error_code)
        created = None
        if version >= 2:
            created = -1 if resp.group_creation_time_ms is None else resp.group_creation_time_ms
        return HeartbeatAnswer(for_code(resp.error_code).message if resp.error_code else None,
                               resp.member_id, resp.member_epoch, created)

    # -- IncrementalAlterConfigs for the broker defaults (confluent-kafka needs a name) --------
    def incremental_alter_configs(self, rtype: str, name: str, set_: dict[str, str], delete: list[str]) -> None:
        from kafka.protocol.admin.configs import IncrementalAlterConfigsRequest as Req

        version = self._version(Req, "IncrementalAlterConfigs")
        C = Req.AlterConfigsResource.AlterableConfig
        configs = [C(name=k, config_operation=1, value=None) for k in delete]
        configs += [C(name=k, config_operation=0, value=v) for k, v in set_.items()]
        resp = self.send(Req(version=version, validate_only=False, resources=[Req.AlterConfigsResource(
            resource_type=RESOURCE_TYPES[rtype], resource_name=name, configs=configs)]), config_node(rtype, name))
        for r in resp.responses:
            if r.error_code:
                from kafka.errors import for_code

                raise BrokerRejected(BrokerError(r.error_code, for_code(r.error_code).message,
                                                 r.error_message or for_code(r.error_code).description))


FETCH_PARTITION_BYTES = 4096          # per partition: the next record's batch, or its first 4 KiB
FETCH_RESPONSE_BYTES = 16 << 20       # per Fetch answer; Kafka caps it at fetch.max.bytes (55 MiB)
# Fetch rounds beyond one per partition for partitions whose answers held only transaction markers
# and aborted batches (each round reads FETCH_PARTITION_BYTES further): past that much aborted
# data the next record's time is reported unknown rather than read on without end.
ROUNDS_PAST_SKIPPED = 16
READ_COMMITTED = 1


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


def _not_sent(exc: Exception) -> BrokerError:
    """A change that never reached the broker: not applied (kcli.ops.failures.unanswered: no)."""
    return BrokerError(-1, "_NOT_SENT", str(exc) if "not sent" in str(exc) else f"not sent: {exc}")


def commit_batches(group_id: str, offsets: dict[tuple[str, int], int]) -> list[dict[tuple[str, int], int]]:
    """``offsets`` in OffsetCommit batches whose records in __consumer_offsets stay under
    COMMIT_BATCH_BYTES (estimated per partition: COMMIT_RECORD_BYTES and the names)."""
    batches: list[dict[tuple[str, int], int]] = [{}]
    size, group_bytes, topic_bytes = 0, len(group_id.encode()), {}
    for (t, p), offset in offsets.items():
        if t not in topic_bytes:
            topic_bytes[t] = len(t.encode())
        cost = COMMIT_RECORD_BYTES + group_bytes + topic_bytes[t]
        if batches[-1] and size + cost > COMMIT_BATCH_BYTES:
            batches.append({})
            size = 0
        batches[-1][(t, p)] = offset
        size += cost
    return batches if batches[-1] else []


def _by_topic(partitions) -> dict[str, list[int]]:
    """(topic, partition) pairs as the requests take them: the partitions of each topic."""
    out: dict[str, list[int]] = {}
    for t, p in partitions:
        out.setdefault(t, []).append(p)
    return out


def _fetch_request(Req, version: int, items: list[tuple[tuple[str, int], int]]):
    """A sessionless Fetch (session 0, epoch -1: Kafka's FetchMetadata.LEGACY) that does not wait,
    read committed, as a read_committed consumer at each offset: records up to the last stable
    offset, with the aborted transactions among them."""
    topics: dict[str, list] = {}
    for (t, p), offset in items:
        topics.setdefault(t, []).append(Req.FetchTopic.FetchPartition(
            partition=p, current_leader_epoch=-1, fetch_offset=offset, last_fetched_epoch=-1,
            log_start_offset=-1, partition_max_bytes=FETCH_PARTITION_BYTES))
    return Req(version=version, replica_id=-1, max_wait_ms=0, min_bytes=0,
               max_bytes=FETCH_RESPONSE_BYTES, isolation_level=READ_COMMITTED, session_id=0,
               session_epoch=-1, topics=[Req.FetchTopic(topic=t, partitions=ps) for t, ps in topics.items()],
               forgotten_topics_data=[], rack_id="")


def _record_time(tp: tuple[str, int], offset: int, start: int, part, for_code) -> RecordTime | int | None:
    """One partition of a Fetch answer (read from ``start``) as a RecordTime for ``offset``; None
    when it came without data while records lie at or after ``start`` (ask again); an offset to
    read on from when the answer held only markers and aborted records before it."""
    if part.error_code:
        return RecordTime(*tp, offset, error=for_code(part.error_code).message)
    hw = part.high_watermark
    stable = part.last_stable_offset if 0 <= part.last_stable_offset < hw else hw
    if start >= stable:
        if start >= hw:                  # nothing a consumer will read: caught up
            return RecordTime(*tp, offset, high_watermark=hw)
        return RecordTime(*tp, offset, high_watermark=hw,
                          error=f"an open transaction holds back the records from offset {stable}")
    if not part.records:
        return None
    from kafka.errors import CorruptRecordError

    aborted = [(a.producer_id, a.first_offset) for a in part.aborted_transactions or ()]
    try:
        kind, ts, at = next_record_time(part.records, start, aborted)
    except CorruptRecordError as exc:
        return RecordTime(*tp, offset, high_watermark=hw, error=f"corrupt record batch: {exc}")
    if kind == "exact":
        return RecordTime(*tp, offset, timestamp_ms=ts, record_offset=at, high_watermark=hw)
    if kind == "bound":
        return RecordTime(*tp, offset, bound_ms=ts, high_watermark=hw)
    if kind == "notime":
        return RecordTime(*tp, offset, record_offset=at, high_watermark=hw,
                          error="the record has no timestamp")
    if kind == "skipped":                # markers and aborted batches up to ``at``
        return RecordTime(*tp, offset, high_watermark=hw) if at >= stable else at
    return RecordTime(*tp, offset, high_watermark=hw,
                      error=f"no record at or after offset {start} in the first "
                            f"{FETCH_PARTITION_BYTES} bytes read")


def next_record_time(records: bytes, offset: int,
                     aborted: list[tuple[int, int]] | None = None) -> tuple[str, int | None, int | None]:
    """The first data record at or after ``offset`` in a Fetch answer's record bytes, read with
    kafka-python's record reader: ("exact", its timestamp, its offset); ("bound", MaxTimestamp of
    its batch, None) when the batch was cut short before that record (Kafka cuts the last batch
    at the partition's byte limit) or is compressed and cut; ("notime", None, its offset) for a
    record without a timestamp (-1, or message format v0); ("skipped", None, the offset after
    them) when these bytes hold, at or after ``offset``, only whole control batches (transaction
    markers) and aborted batches; ("none", None, None) when they hold no such record otherwise.
    A LogAppendTime batch gives every record its MaxTimestamp: exact.

    ``aborted``: the Fetch answer's aborted transactions, (producer id, first offset), read
    committed as Kafka's consumer does (its CompletedFetch): a transactional batch of a producer
    whose aborted transaction began at or before the batch's last offset is skipped, until that
    producer's abort marker."""
    from kafka.record import MemoryRecords
    from kafka.record.default_records import DefaultRecordBatch

    upcoming = sorted(aborted or (), key=lambda a: a[1])
    aborting: set[int] = set()
    skipped_to = None
    batches = MemoryRecords(records)
    for batch in batches:                                  # the complete batches
        if batch.magic >= 2:
            while upcoming and upcoming[0][1] <= batch.last_offset:
                aborting.add(upcoming.pop(0)[0])
            if batch.is_control_batch:
                if batch.producer_id in aborting and next(iter(batch)).abort:
                    aborting.discard(batch.producer_id)
            if batch.last_offset < offset:
                continue
            if batch.is_control_batch or (batch.is_transactional and batch.producer_id in aborting):
                skipped_to = batch.last_offset + 1
                continue
        for record in batch:
            if record.offset >= offset:
                if record.timestamp is None or record.timestamp < 0:
                    return "notime", None, record.offset
                return "exact", record.timestamp, record.offset
    rest = records[batches.valid_bytes():]
    if len(rest) < DefaultRecordBatch.HEADER_STRUCT.size:
        return ("none", None, None) if skipped_to is None else ("skipped", None, skipped_to)
    cut = DefaultRecordBatch(rest)                         # its header is whole: read it
    while upcoming and upcoming[0][1] <= cut.last_offset:
        aborting.add(upcoming.pop(0)[0])
    if cut.magic != 2 or cut.last_offset < offset or cut.is_control_batch or (
            cut.is_transactional and cut.producer_id in aborting):
        return ("none", None, None) if skipped_to is None else ("skipped", None, skipped_to)
    if cut.timestamp_type == DefaultRecordBatch.LOG_APPEND_TIME:
        return "exact", cut.max_timestamp, None           # which record: not read
    if cut.compression_type == DefaultRecordBatch.CODEC_NONE:
        from kafka.errors import CorruptRecordError

        try:
            for record in cut:                             # the records before the cut
                if record.offset >= offset:
                    if record.timestamp < 0:
                        return "notime", None, record.offset
                    return "exact", record.timestamp, record.offset
        except CorruptRecordError:                         # reached the cut
            pass
    return "bound", cut.max_timestamp, None


def _committed(group_id: str, error_code: int, topics, every: bool) -> list[CommittedOffset]:
    """One group's OffsetFetch answer: its committed offsets (``every``: only the partitions
    with a commit); a group the coordinator does not know has none."""
    from kafka.errors import for_code

    if error_code == GROUP_ID_NOT_FOUND:
        return []
    if error_code:
        raise OperationError(f"Cannot fetch the committed offsets of group '{group_id}': "
                             f"{for_code(error_code).description}")
    out = []
    for t in topics:
        for p in t.partitions:
            if p.error_code:
                raise OperationError(f"Cannot fetch the committed offset of {t.name}-{p.partition_index} "
                                     f"for group '{group_id}': {for_code(p.error_code).description}")
            committed = p.committed_offset if p.committed_offset >= 0 else None
            if every and committed is None:
                continue
            epoch = getattr(p, "committed_leader_epoch", -1)
            out.append(CommittedOffset(t.name, p.partition_index, committed,
                                       epoch if epoch is not None and epoch >= 0 else None,
                                       p.metadata or ""))
    return out


def _coordinators_not_found(codes: dict[str, int | None], when: str) -> str:
    """The one line for the groups whose coordinator was still not available ``when`` time ran
    out: the first group by name, how many more, what the broker last answered for it (None:
    the answer left the group out)."""
    from kafka.errors import for_code

    groups = list(codes)
    named = f"group '{groups[0]}'" + (f" (and {len(groups) - 1} more groups)" if len(groups) > 1 else "")
    code = codes[groups[0]]
    answered = ("leaving it out of its answers" if code is None
                else f"answering {for_code(code).message}")
    return f"Cannot find the coordinator of {named} {when}: the broker kept {answered} (retried)"


def _error_name(code: int) -> str:
    from kafka.errors import for_code

    return for_code(code).message


def _config_source(source: int) -> str:
    return CONFIG_SOURCES[source] if 0 <= source < len(CONFIG_SOURCES) else "UNKNOWN_CONFIG"
