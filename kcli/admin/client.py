"""The admin adapter: the one interface commands call. Implemented on confluent-kafka's
AdminClient; the KIP requests no client library exposes go through ``kcli.admin.wire`` (kafka-python's
protocol layer). Each client library is imported by the operations that use it, so a command loads
only the one it needs (``describe topics`` runs on the wire client alone)."""

from __future__ import annotations

import functools
import logging
import re
import time

from kcli.admin import Admin
from kcli.admin import sightings
from kcli.admin.fallback import LibrdkafkaReads, or_librdkafka, or_unavailable, unsupported
from kcli.admin.settings import ClientSettings
from kcli.datatypes import replace
from kcli.errors import (AUTHORIZATION_FAILED, BrokerRejected, OperationError, UnsupportedByBroker, UsageError,
                         not_authorized)
from kcli.model import (GROUP_STATES, AclFilter, AclRule, BrokerError, BrokerInfo, ClusterDescription, CommittedOffset,
                        FeatureLevels, GroupDescription, GroupListing, GroupMember, LogDirInfo, OffsetInfo,
                        QuorumDescription,
                        RecordTime, ReplicaLogDir, ResourceConfig, StreamsGroupDescription, TopicInfo)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterable

    from confluent_kafka.admin import AdminClient

    from kcli.admin.wire import WireClient
    from kcli.errors import UnreadableAnswer

_quiet = logging.getLogger("kcli.librdkafka")
_quiet.addHandler(logging.NullHandler())
_quiet.propagate = False

SPECIAL_TIMES = {"latest": -1, "earliest": -2, "max-timestamp": -3}
# librdkafka holds a client's first connection to a broker learned from metadata for its
# sparse-connection interval, reconnect.backoff.ms / 2 (50 ms by default, 11 at least): the first
# request after bootstrap waits that long. A one-shot command takes the minimum; the user's
# properties (--command-config, profiles) still win.
LIBRDKAFKA_DEFAULTS = {"reconnect.backoff.ms": "20"}
# What ConsumerGroupDescribe alone carries (a broker answer kcli cannot read: unavailable).
CONSUMER_FIELDS = "the consumer-protocol fields (epochs, target assignment, GroupCreationTimeMs)"


def sighted(seen):
    """The decorated method's answer lists topics' partitions: what ``seen(answer)`` (topic ->
    (topic id or None, partition count)) says is recorded in kcli's sightings
    (kcli.admin.sightings), between the time it was asked and the time it came back."""
    def wrap(method):
        @functools.wraps(method)
        def call(self, *args, **kwargs):
            sent = int(time.time() * 1000)
            answer = method(self, *args, **kwargs)
            self._record_sightings(seen(answer), sent, int(time.time() * 1000))
            return answer
        return call
    return wrap


def _counts(answer: dict) -> dict:
    return {t: (None, len(parts) if isinstance(parts, dict) else parts) for t, parts in answer.items()}


def _aged(answer: dict) -> dict:
    counts: dict[str, int] = {}
    for t, p in answer:
        counts[t] = max(counts.get(t, 0), p + 1)
    return {t: (None, n) for t, n in counts.items()}


# librdkafka's words for a connection that failed before anything was sent: refused, reset
# during connect, no route, or no address for the name.
_CONNECT_FAILED = re.compile(r"(?P<broker>[^/\s]+)/\S+: (?:Connect to \S+ failed|Failed to resolve '[^']*'): "
                             r"(?P<reason>.*?)(?: \(after \d+ms in state \w+\))?$")
_TIMED_OUT = -185                    # librdkafka's RD_KAFKA_RESP_ERR__TIMED_OUT


def connect_failure_from_librdkafka_text(text: str) -> str | None:
    """The one place this adapter reads a foreign library's error text: librdkafka tells a
    connection refused (or a name without an address) from other transport errors, and names the
    broker, only in its error's text (``_CONNECT_FAILED``). ``broker: reason``, or None."""
    refused = _CONNECT_FAILED.match(text)
    return f"{refused['broker']}: {refused['reason']}" if refused else None


class ClientFailure(OperationError):
    """librdkafka reported an error that no retry will cure (authentication, TLS, a fatal error):
    every request of this client fails with it, so no per-request handler may wrap or keep it."""


def _err(exc: BaseException) -> str:
    from confluent_kafka import KafkaException

    if isinstance(exc, KafkaException) and exc.args:
        e = exc.args[0]
        return e.str() if hasattr(e, "str") else str(e)
    return str(exc)


class KafkaAdmin(LibrdkafkaReads, Admin):
    """The ``Admin`` interface (declared, so that type checkers hold every method to it)."""

    def __init__(self, settings: ClientSettings):
        self.settings = settings
        self.notes: list[str] = []                # the Warn lines of this command (see warn)
        self._client: AdminClient | None = None
        self._wire: WireClient | UnreadableAnswer | None = None
        self._failure: str | None = None          # see _on_error
        self._last_error: str | None = None
        self._unreachable: str | None = None      # the last connect failure, while it is the last word

    @property
    def _admin(self):
        """Created on first use: librdkafka connects as soon as a client exists."""
        if self._client is None:
            from confluent_kafka.admin import AdminClient

            from confluent_kafka import KafkaException

            # error_cb is a documented key that confluent-kafka's stub leaves out of its value type
            config: dict[str, Any] = {**LIBRDKAFKA_DEFAULTS, **self.settings.librdkafka_config(),
                                      "error_cb": self._on_error}
            try:
                self._client = AdminClient(config, logger=_quiet)
            except KafkaException as exc:     # an unknown property, a TLS file it cannot read
                raise UsageError(f"Invalid client configuration: {_err(exc)}") from None
        return self._client

    def _on_error(self, err) -> None:
        """librdkafka's client-level errors (served by ``poll``): an authentication or TLS failure
        or a fatal error ends every wait at once; others (a broker down) are retried by librdkafka
        and only explain a timeout."""
        from confluent_kafka import KafkaError

        if err.code() != KafkaError._ALL_BROKERS_DOWN:
            self._last_error = err.str()
        if err.code() in (KafkaError._TRANSPORT, KafkaError._RESOLVE):
            self._unreachable = connect_failure_from_librdkafka_text(err.str())
        cause = None
        if err.fatal() or err.code() in (KafkaError._AUTHENTICATION, KafkaError._SSL):
            cause = err.str()
        elif err.code() == KafkaError._ALL_BROKERS_DOWN and self._unreachable:
            # Every bootstrap broker refused the connection or has no address, and none was
            # connected since: as certain as it gets at the first attempt (a silent broker
            # still runs to --timeout).
            cause = self._unreachable
        if cause:
            self._failure = f"Cannot connect to the cluster at {self.settings.bootstrap_servers}: {cause}"

    def _result(self, fut, until: float | None = None):
        """``fut.result()`` by ``until`` (default: the deadline), serving librdkafka's error
        events meanwhile. The adapter's boundary: the future's error becomes BrokerRejected
        (Kafka's code and name), no answer in time the same with ``_TIMED_OUT``; a client-level
        failure (authentication, TLS) is ClientFailure."""
        deadline = self.settings.until() if until is None else until
        started = time.monotonic()
        slice_s = 0.005          # short at first: librdkafka reports a refused connection in ms
        for _ in range(int(self.settings.timeout_s / 0.05) + 12):  # bounded: slices up to 50 ms
            if self._failure:
                raise ClientFailure(self._failure)
            try:
                return fut.result(timeout=max(0.0, min(slice_s, deadline - time.monotonic())))
            except TimeoutError:
                self._admin.poll(0)
                slice_s = min(0.05, slice_s * 2)
                if time.monotonic() >= deadline:
                    break
            except Exception as exc:  # noqa: BLE001 - the boundary: whatever the binding raises is typed here
                error = _broker_error(exc)
                if error.name != "_TIMED_OUT":          # librdkafka's own request timeout is ours too
                    raise BrokerRejected(error, _err(exc)) from None
                self._admin.poll(0)
                break
        self._no_answer(None if until is None else time.monotonic() - started)

    def _no_answer(self, waited_s: float | None = None):
        """No answer: by the command's deadline, or (``waited_s``) in the shorter wait a caller
        chose. The message says which, never the whole --timeout for a wait that was shorter."""
        last = f" (last client error: {self._last_error})" if self._last_error else ""
        when = (f"before the command's deadline (--timeout {self.settings.timeout_ms} ms) passed"
                if waited_s is None else f"in the {round(waited_s * 1000)} ms kcli waited")
        message = f"No answer from the cluster at {self.settings.bootstrap_servers} {when}{last}"
        raise BrokerRejected(BrokerError(_TIMED_OUT, "_TIMED_OUT", message))

    def _timeout(self) -> float:
        """librdkafka's request timeout for a call starting now: what is left of the deadline."""
        left = self.settings.remaining_s()
        if left <= 0:
            self._no_answer()
        return left

    # -- plumbing -------------------------------------------------------------------------
    @property
    def wire(self):
        """kcli's own client, connected on first use; one that could not negotiate with the
        broker (UnreadableAnswer) is not tried again by this command."""
        if isinstance(self._wire, Exception):
            raise self._wire
        if self._wire is None:
            from kcli.admin.wire import WireClient
            from kcli.errors import UnreadableAnswer

            try:
                self._wire = WireClient(self.settings)
            except UnreadableAnswer as exc:
                self._wire = exc
                raise
        return self._wire

    def close(self) -> None:
        if self._wire is not None and not isinstance(self._wire, Exception):
            self._wire.close()
        # Destroy the librdkafka client now (its last reference; its error_cb holds only self):
        # left to process exit, its threads outlive the C atexit handlers and may crash in
        # OpenSSL's cleanup while reconnecting to a TLS listener.
        self._client = None

    # -- topics ---------------------------------------------------------------------------
    @or_librdkafka("_lr_topic_names")
    def topic_names(self) -> list[str]:
        """Every topic, sorted: one Metadata on kcli's own connection (the one describe topics
        uses for everything)."""
        return self.wire.topic_names()

    @or_librdkafka("_lr_broker_ids")
    def broker_ids(self) -> list[int]:
        return self.wire.broker_ids()

    @or_librdkafka("_lr_cluster_id")
    def cluster_id(self) -> str | None:
        """One Metadata request for no topic, on kcli's own connection: librdkafka's list_topics
        asks for every partition of every topic (3 s at 30k partitions)."""
        return self.wire.cluster_id()

    @sighted(_counts)
    @or_librdkafka("_lr_partition_counts")
    def partition_counts(self) -> dict[str, int]:
        """Partition count per topic, every topic: one Metadata request, on kcli's own connection
        (librdkafka's list_topics is sliced to serve its error events while it waits)."""
        return self.wire.partition_counts()

    @sighted(lambda topics: {t.name: (t.topic_id, len(t.partitions)) for t in topics})
    @or_librdkafka("_lr_describe_topics", kip_only={"DescribeTopicPartitions": "CreationTimeMs (KIP-1327)"})
    def describe_topics(self, names: list[str], progress=None) -> list[TopicInfo]:
        """Leader, replicas, ISR, ELR and CreationTimeMs per partition (see WireClient);
        ``progress`` (done, total) counts the topics."""
        return self.wire.describe_topics(names, progress)

    @sighted(_aged)
    @or_unavailable("PartitionAgeMs (KIP-1327)", unsupported("PartitionAgeMs (KIP-1327) is unavailable"))
    def partition_ages(self, topics: list[str]) -> dict[tuple[str, int], int]:
        """KIP-1327 PartitionAgeMs per partition (-1 unknown); UnsupportedByBroker without
        Metadata v14."""
        return self.wire.partition_ages(topics)

    def partition_sightings(self, topics: list[str]) -> dict[tuple[str, int], tuple[int | None, int]]:
        """What kcli saw of the topics' partitions, this command included (kcli.admin.sightings):
        (created after ms or None, created at or before ms) per partition it has seen."""
        return sightings.of_topics(self._sightings_path(), topics)

    def _sightings_path(self) -> str:
        return sightings.path_for(self.cluster_id())

    def _record_sightings(self, seen: dict, sent_ms: int, received_ms: int) -> None:
        """Bookkeeping: a cluster id that cannot be read now (the deadline spent) loses these
        sightings, never the command's answer."""
        if not seen:
            return
        try:
            path = self._sightings_path()
        except Exception:  # noqa: BLE001 - see above; the next command records them again
            return
        sightings.record(path, seen, sent_ms, received_ms)

    @or_unavailable("GroupCreationTimeMs (KIP-1282)", lambda exc: None)
    def group_creation_times(self, group_ids: list[str]) -> dict[str, int | None] | None:
        """KIP-1282 GroupCreationTimeMs per group (-1 unknown, None not described), or None when
        the broker has no ConsumerGroupDescribe v2."""
        return self.wire.group_creation_times(group_ids)

    def create_topic(self, name: str, partitions: int | None, replication_factor: int | None,
                     configs: dict[str, str], assignment: list[list[int]] | None,
                     validate_only: bool = False) -> None:
        from confluent_kafka.admin import NewTopic

        kwargs: dict[str, Any] = {"config": configs}
        if assignment:
            # confluent-kafka's NewTopic refuses an assignment with its default partition count
            # (-1) at create time; the count the assignment implies is accepted.
            kwargs.update(replica_assignment=assignment, num_partitions=len(assignment))
        else:
            kwargs["num_partitions"] = partitions if partitions is not None else -1
            kwargs["replication_factor"] = replication_factor if replication_factor is not None else -1
        futures = self._admin.create_topics([NewTopic(name, **kwargs)], validate_only=validate_only,
                                            request_timeout=self._timeout(),
                                            operation_timeout=self._timeout())
        self._raise_first(futures, "CreateTopics", name)

    def create_partitions(self, name: str, total: int, assignment: list[list[int]] | None) -> None:
        from confluent_kafka.admin import NewPartitions

        np = NewPartitions(name, total, assignment) if assignment else NewPartitions(name, total)
        self._raise_first(self._admin.create_partitions([np], request_timeout=self._timeout()), "CreatePartitions",
                          name)

    def delete_topics(self, names: list[str]) -> dict[str, BrokerError | None]:
        futures = self._admin.delete_topics(names, request_timeout=self._timeout(),
                                            operation_timeout=self._timeout())
        return self._per_item(futures, "DeleteTopics")

    # -- configs --------------------------------------------------------------------------
    @or_librdkafka("_lr_describe_configs")
    def describe_configs(self, resources: list[tuple[str, str]], refusals: list | None = None) -> list[ResourceConfig]:
        """Every config of each resource, in the broker's order, with synonyms (all of them: a
        synonym name may repeat across sources, which confluent-kafka's dict of synonyms
        cannot hold). ``refusals``: as WireClient.describe_configs'."""
        return self.wire.describe_configs(resources, synonyms=True, refusals=refusals)

    def alter_configs(self, rtype: str, name: str, set_: dict[str, str], delete: list[str]) -> None:
        """Incremental: ``set_`` and ``delete``; name "" is the cluster-wide broker defaults."""
        if name == "":
            return self.wire.incremental_alter_configs(rtype, name, set_, delete)
        from confluent_kafka.admin import AlterConfigOpType, ConfigEntry as CkConfigEntry, ConfigResource

        entries = [CkConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET) for k, v in set_.items()]
        entries += [CkConfigEntry(k, None, incremental_operation=AlterConfigOpType.DELETE) for k in delete]
        cr = ConfigResource(rtype, name, incremental_configs=entries)
        self._raise_first(self._admin.incremental_alter_configs([cr], request_timeout=self._timeout()),
                          "IncrementalAlterConfigs", name)

    # -- offsets --------------------------------------------------------------------------
    @or_librdkafka("_lr_list_offsets")
    def list_offsets(self, partitions: Iterable[tuple[str, int]], time: int) -> list[OffsetInfo]:
        """``time``: -1 latest, -2 earliest, -3 max-timestamp (KIP-734), -4/-5/-6 the tiered-storage
        offsets, else epoch ms. On kcli's own connections, one ListOffsets per leader
        (WireClient.list_offsets: librdkafka's grows faster than the partitions, and refuses -4/-5/-6)."""
        partitions = list(partitions)
        return self.wire.list_offsets(partitions, time) if partitions else []

    def delete_records(self, offsets: dict[tuple[str, int], int]
                       ) -> dict[tuple[str, int], tuple[int | None, BrokerError | None]]:
        """DeleteRecords (a change: librdkafka sends it, one request per leader): each partition's
        low watermark after it, or the broker's error."""
        from confluent_kafka import TopicPartition

        futures = self._admin.delete_records([TopicPartition(t, p, o) for (t, p), o in offsets.items()],
                                             request_timeout=self._timeout(), operation_timeout=self._timeout())
        result: dict[tuple[str, int], tuple[int | None, BrokerError | None]] = {}
        for tp, fut in futures.items():
            try:
                result[(tp.topic, tp.partition)] = (self._result(fut).low_watermark, None)
            except BrokerRejected as exc:
                result[(tp.topic, tp.partition)] = (None, exc.error)
        return result

    def record_times(self, wanted: list[tuple[str, int, int]]) -> dict[tuple[str, int, int], RecordTime]:
        """The first record at or after each (topic, partition, offset): its timestamp, or a
        bound on it (see WireClient.record_times). One Metadata for the leaders, then one bounded
        Fetch per leader and 10k of its partitions; UnsupportedByBroker without Fetch v4+."""
        if not wanted:
            return {}
        leaders = self.partition_leaders(sorted({t for t, _, _ in wanted}))
        flat = {(t, p): leader for t, parts in leaders.items() for p, leader in parts.items()}
        return self.wire.record_times(list(wanted), flat)

    @or_librdkafka("_lr_describe_cluster")
    def describe_cluster(self) -> ClusterDescription:
        """DescribeCluster on kcli's own connection (WireClient.describe_cluster: v2 names the
        fenced brokers, which librdkafka's describe_cluster, from Metadata, cannot)."""
        return self.wire.describe_cluster()

    def unregister_node(self, kind: str, node_id: int) -> "BrokerError | None":
        """UnregisterBroker or UnregisterController (``kind`` "broker" or "controller") on kcli's
        own connection (WireClient.unregister_node: confluent-kafka has no call for either)."""
        return self.wire.unregister_node(kind, node_id)

    def describe_quorum(self) -> QuorumDescription | None:
        """DescribeQuorum on kcli's own connection (confluent-kafka has no call for it); None
        where the broker lacks the API."""
        return self.wire.describe_quorum()

    def describe_features(self, node_id: int | None = None) -> FeatureLevels:
        """What ApiVersions says of the features, on kcli's own connection (to ``node_id``)."""
        return self.wire.describe_features(node_id)

    def update_features(self, updates: list[tuple[str, int, int]], validate_only: bool) -> dict[str, str | None]:
        """UpdateFeatures on kcli's own connection (confluent-kafka has no call for it)."""
        return self.wire.update_features(updates, validate_only)

    def broker_api_versions(self, broker_ids: list[int]) -> dict[int, dict[int, tuple[int, int]]]:
        """Each broker's ApiVersions answer, on kcli's own connection to it."""
        return self.wire.broker_api_versions(broker_ids)

    def describe_log_dirs(self, broker_ids: list[int]) -> list[ReplicaLogDir]:
        """DescribeLogDirs to each broker on kcli's own connections (WireClient.describe_log_dirs:
        confluent-kafka has no call for it)."""
        return self.wire.describe_log_dirs(broker_ids) if broker_ids else []

    def log_dirs(self, broker_ids: list[int], partitions: dict[int, list[tuple[str, int]]] | None = None
                 ) -> list[LogDirInfo]:
        """Each broker's log dirs with their errors and replicas (WireClient.log_dirs): every
        replica, or with ``partitions`` only those asked of each broker."""
        return self.wire.log_dirs(broker_ids, partitions) if broker_ids else []

    @sighted(_counts)
    @or_librdkafka("_lr_partition_leaders")
    def partition_leaders(self, names: list[str]) -> dict[str, dict[int, int | None]]:
        """Leader per partition (None: no leader) of the named topics that exist; one Metadata."""
        return self.wire.partition_leaders(names) if names else {}

    # -- consumer groups ------------------------------------------------------------------
    @or_librdkafka("_lr_list_groups")
    def list_groups(self) -> list[GroupListing]:
        """Classic and consumer-protocol groups, in the order the brokers list them (filters
        and orders are the callers'): one ListGroups per broker on kcli's own connection
        (WireClient.list_groups), states and types named as Kafka names them (Assigning and
        Reconciling included; a state it has no name for is "Unknown"). A command that lists
        then describes groups loads no librdkafka client."""
        return _consumer_listings(self.wire.list_groups())

    def list_every_group(self) -> tuple[list[GroupListing], list[GroupListing], list[GroupListing]]:
        """list_groups', list_streams_groups' and list_share_groups' groups from one ListGroups
        per broker (WireClient.list_every_group)."""
        consumer, streams, share = self.wire.list_every_group()
        return _consumer_listings(consumer), streams, share

    def _lr_list_groups(self) -> list[GroupListing]:
        """librdkafka's ListConsumerGroups."""
        try:
            res = self._result(self._admin.list_consumer_groups(request_timeout=self._timeout()))
        except BrokerRejected as exc:
            raise OperationError(f"Cannot list consumer groups: {exc.message}") from None
        if res.errors:          # a broker that did not answer: the list is not the cluster's
            if self._failure:
                raise ClientFailure(self._failure)
            error = _broker_error(res.errors[0])
            if error.name == "_TIMED_OUT":
                self._no_answer()
            raise OperationError(f"Cannot list consumer groups: {error.message}")
        return [GroupListing(g.group_id, _state_name(getattr(g, "state", None)), _type_name(getattr(g, "type", None)))
                for g in res.valid]

    @or_librdkafka("_lr_describe_groups", kip_only={"ConsumerGroupDescribe": CONSUMER_FIELDS})
    def describe_groups(self, group_ids: list[str], refusals: list | None = None) -> list[GroupDescription]:
        """On kcli's own connection, one ConsumerGroupDescribe (the epochs, target assignments,
        the exact state and, v2 KIP-1282, the creation time) then one DescribeGroups (the classic
        groups) per coordinator, whatever the number of groups (WireClient.describe_groups):
        librdkafka's DescribeConsumerGroups sends a FindCoordinator and a DescribeGroups per
        group. A group the broker does not know comes back with ``exists=False``. A broker
        without DescribeGroups gets librdkafka's request, and its answer. A group this principal
        may not describe raises its NotAuthorized (kcli.errors) or, given ``refusals``, is left
        out and its NotAuthorized appended there."""
        try:
            found, brokers = self.wire.describe_groups(group_ids)
        except UnsupportedByBroker:
            return self._lr_describe_groups(group_ids)
        version = self.wire.consumer_group_describe_version()
        out = []
        for gid in group_ids:
            kind, g, node = found.get(gid, ("unanswered", None, None))
            if kind == "classic":                 # the common case first (10k groups)
                state = _known_state(g.group_state)
                consumer = g.protocol_type == "consumer"
                members = [GroupMember(m.member_id, m.client_id, m.client_host,
                                       _decoded_assignment(m.member_assignment) if consumer else [],
                                       m.group_instance_id) for m in g.members]
                out.append(GroupDescription(gid, state, "Classic", g.protocol_data or "", brokers.get(node), members,
                                            exists=not (state == "Dead" and not members)))
            elif kind == "consumer":
                d = GroupDescription(gid, "", "Consumer", "", brokers.get(node))
                _consumer_protocol(d, g, version)
                out.append(d)
            elif kind == "missing":
                out.append(GroupDescription(gid, "Dead", "Classic", "", None, exists=False, not_found=g))
            elif kind in ("refused", "error"):
                refusal = g if kind == "refused" else self.wire.refused(g.error_code, "DescribeGroups", gid)
                if refusal is None:
                    raise OperationError(f"Cannot describe group '{gid}': {_worded(g.error_code).message}")
                if refusals is None:
                    raise refusal
                refusals.append(refusal)
            else:
                raise OperationError(f"Cannot describe group '{gid}': its coordinator's answer did not mention it")
        return out

    def _lr_describe_groups(self, group_ids: list[str], refusals: list | None = None) -> list[GroupDescription]:
        """librdkafka's DescribeConsumerGroups (per group), with the consumer-protocol fields
        from kcli's own ConsumerGroupDescribe when it can read them; ``refusals`` as
        ``describe_groups``'."""
        futures = self._admin.describe_consumer_groups(list(group_ids), request_timeout=self._timeout())
        out: dict[str, GroupDescription] = {}
        for gid, fut in futures.items():
            try:
                d = self._result(fut)
            except BrokerRejected as exc:
                if exc.error.name == "GROUP_ID_NOT_FOUND":
                    out[gid] = GroupDescription(gid, "Dead", "Classic", "", None, exists=False)
                    continue
                refusal = not_authorized(exc.error, "DescribeGroups", gid, self.settings.principal())
                if refusal is not None and refusals is not None:
                    refusals.append(refusal)
                    continue
                raise refusal or OperationError(f"Cannot describe group '{gid}': {exc.message}") from None
            state = _state_name(d.state)
            coord = d.coordinator
            out[gid] = GroupDescription(
                gid, state, _type_name(getattr(d, "type", None)), d.partition_assignor or "",
                BrokerInfo(coord.id, coord.host, coord.port) if coord is not None else None,
                [GroupMember(m.member_id, m.client_id, m.host, _tps(m.assignment),
                             m.group_instance_id) for m in d.members],
                exists=not (state == "Dead" and not d.members))
        consumer = [g for g, d in out.items() if d.exists and d.type != "Classic"]
        if consumer:
            self._overlay_consumer_protocol(out, consumer)
        return [out[g] for g in group_ids if g in out]

    @or_unavailable(CONSUMER_FIELDS, lambda exc: None)
    def _overlay_consumer_protocol(self, out: dict[str, GroupDescription], group_ids: list[str]) -> None:
        version = self.wire.consumer_group_describe_version()
        for gid, g in self.wire.describe_consumer_groups_v2(group_ids).items():
            _consumer_protocol(out[gid], g, version)

    @or_librdkafka("_lr_committed_offsets_of_groups")
    def committed_offsets_of_groups(self, group_ids: list[str],
                                    partitions: dict[str, list[tuple[str, int]]] | None = None
                                    ) -> dict[str, list[CommittedOffset]]:
        """Every partition with a commit, per group (or the partitions ``partitions`` names for
        it, as ``committed_offsets``): one OffsetFetch v8+ per coordinator on kcli's own
        connection (WireClient.committed_offsets_of_groups), one per group before v8."""
        return self.wire.committed_offsets_of_groups(group_ids, partitions) if group_ids else {}

    @or_librdkafka("_lr_committed_offsets")
    def committed_offsets(self, group_id: str,
                          partitions: list[tuple[str, int]] | None = None) -> list[CommittedOffset]:
        """One OffsetFetch on kcli's own connection (WireClient.committed_offsets): the given
        partitions, or every partition with a commit (None), in the broker's order."""
        return self.wire.committed_offsets(group_id, partitions) if partitions != [] else []

    @or_librdkafka("_lr_alter_group_offsets")
    def alter_group_offsets(self, group_id: str, offsets: dict[tuple[str, int], int],
                            until: float | None = None) -> dict[tuple[str, int], BrokerError | None]:
        """OffsetCommit for the group on kcli's own connection (WireClient.commit_offsets: one
        request per coordinator and batch, librdkafka's alter_consumer_group_offsets grew faster
        than the partitions), waited for until ``until`` (time.monotonic; default the deadline);
        the error (or None) per partition. Sent without an answer: ``_TIMED_OUT``/``_TRANSPORT``,
        the commit may or may not have been applied; not sent: ``_NOT_SENT``. The broker's
        errors are named and worded as librdkafka names them, like every other per-item error, but
        for a refusal, which says what was refused to whom (kcli.errors.NotAuthorized)."""
        return {tp: e if e is None or e.code <= 0 or e.code in AUTHORIZATION_FAILED else _worded(e.code)
                for tp, e in self.wire.commit_offsets(group_id, offsets, until).items()}

    def delete_groups(self, group_ids: list[str]) -> dict[str, BrokerError | None]:
        futures = self._admin.delete_consumer_groups(list(group_ids), request_timeout=self._timeout())
        return self._per_item(futures, "DeleteGroups")

    # -- streams groups -------------------------------------------------------------------
    def list_streams_groups(self) -> list[GroupListing]:
        """ListGroups (types ["streams"]) to every broker, on kcli's own connection."""
        return self.wire.list_streams_groups()

    def describe_streams_groups(self, group_ids: list[str],
                                errors: dict[str, str] | None = None) -> dict[str, StreamsGroupDescription]:
        """StreamsGroupDescribe per coordinator (WireClient.describe_streams_groups): the groups
        the broker knows as streams groups (``errors``: the broker's message for the others)."""
        return self.wire.describe_streams_groups(group_ids, errors)

    def streams_topology_status(self, group_id: str) -> str:
        """KIP-1331's TopologyDescriptionStatus of one streams group (WireClient.streams_topology_status)."""
        return self.wire.streams_topology_status(group_id)

    # -- share groups (KIP-932) ------------------------------------------------------------
    def list_share_groups(self) -> list[GroupListing]:
        """ListGroups (types ["share"]) to every broker, on kcli's own connection."""
        return self.wire.list_share_groups()

    def describe_share_groups(self, group_ids: list[str], errors: dict | None = None,
                              refusals: dict | None = None) -> dict:
        """ShareGroupDescribe per coordinator (WireClient.describe_share_groups); ``refusals``:
        as its."""
        return self.wire.describe_share_groups(group_ids, errors, refusals)

    def share_group_offsets(self, group_id: str):
        """DescribeShareGroupOffsets: (group-level BrokerError or None, [ShareOffset])."""
        return self.wire.share_group_offsets(group_id)

    def share_group_offsets_of_groups(self, group_ids: list[str]) -> dict:
        """DescribeShareGroupOffsets of many groups, one request per coordinator."""
        return self.wire.share_group_offsets_of_groups(group_ids)

    def alter_share_group_offsets(self, group_id: str, offsets: dict[tuple[str, int], int]):
        """AlterShareGroupOffsets: (top-level BrokerError or None, {(topic, partition): BrokerError or None})."""
        return self.wire.alter_share_group_offsets(group_id, offsets)

    def delete_share_group_offsets(self, group_id: str, topics: list[str]):
        """DeleteShareGroupOffsets: (top-level BrokerError or None, {topic: BrokerError or None})."""
        return self.wire.delete_share_group_offsets(group_id, topics)

    def delete_group_offsets(self, group_id: str, partitions: list[tuple[str, int]]):
        """OffsetDelete: (group-level BrokerError or None, {(topic, partition): BrokerError or None})."""
        return self.wire.delete_offsets(group_id, partitions)

    # -- replicas -------------------------------------------------------------------------
    def alter_reassignments(self, moves: dict[tuple[str, int], list[int] | None], allow_rf_change: bool = True
                            ) -> dict[tuple[str, int], BrokerError | None]:
        """AlterPartitionReassignments on kcli's own connection (librdkafka has no such call)."""
        return self.wire.alter_reassignments(moves, allow_rf_change)

    def list_reassignments(self, partitions: list[tuple[str, int]] | None = None):
        """ListPartitionReassignments on kcli's own connection: Reassignment records."""
        return self.wire.list_reassignments(partitions)

    def elect_leaders(self, unclean: bool, partitions: list[tuple[str, int]] | None
                      ) -> dict[tuple[str, int], BrokerError | None]:
        """ElectLeaders on kcli's own connection: confluent-kafka 2.16's elect_leaders refuses
        every timeout argument (a SystemError), so librdkafka's would not hold the command's
        deadline (rule (c))."""
        return self.wire.elect_leaders(unclean, partitions)

    def replica_log_ends(self, wanted: dict[int, list[tuple[str, int]]]) -> dict[tuple[str, int, int], int | None]:
        """Each broker's own replica's log end offset (WireClient.replica_log_ends: librdkafka's
        ListOffsets goes to the leader only)."""
        return self.wire.replica_log_ends(wanted)

    # -- client quotas: on kcli's own connection (confluent-kafka has no quota calls) ----------
    def describe_client_quotas(self, components: list[tuple[str, str, str | None]], strict: bool):
        """DescribeClientQuotas: QuotaEntity records (WireClient.describe_client_quotas)."""
        return self.wire.describe_client_quotas(components, strict)

    def alter_client_quotas(self, parts: list[tuple[str, str | None]], set_: dict[str, float],
                            remove: list[str], validate_only: bool) -> BrokerError | None:
        """AlterClientQuotas for one entity (WireClient.alter_client_quotas)."""
        return self.wire.alter_client_quotas(parts, set_, remove, validate_only)

    # -- check broker: on kcli's own connection (no client library sends these as asked) ----
    def advertised_version(self, api_key: int) -> int | None:
        """The highest version of ``api_key`` the broker advertises (ApiVersions), None without it."""
        return self.wire.advertised_version(api_key)

    def produce_batch(self, topic: str, partition: int, records: list[tuple[int, bytes | None, bytes | None]]):
        """One record batch of (timestamp, key, value) to the partition's leader, as one Produce:
        the broker's answer as a ProduceOutcome (WireClient.produce_batch)."""
        return self.wire.produce_batch(topic, partition, records)

    def consumer_group_heartbeat(self, group_id: str, member_id: str, epoch: int, topics: list[str] | None):
        """One ConsumerGroupHeartbeat (join with epoch 0, leave with -1): a HeartbeatAnswer."""
        return self.wire.consumer_group_heartbeat(group_id, member_id, epoch, topics)

    def advertised_range(self, api_key: int) -> tuple[int, int] | None:
        """The (lowest, highest) versions of ``api_key`` the broker advertises, None without it."""
        return self.wire.advertised_range(api_key)

    def consumer_group_heartbeat_layouts(self, group_id: str, member_id: str, topics: list[str]):
        """One ConsumerGroupHeartbeat v2 join, its answer's bytes read with each v2 layout: a
        LayoutReading per layout (WireClient.consumer_group_heartbeat_layouts)."""
        return self.wire.consumer_group_heartbeat_layouts(group_id, member_id, topics)

    # -- ACLs (kcli's own connection: librdkafka lacks two resource types and three operations)
    def describe_acls(self, acl_filter: AclFilter) -> list[AclRule]:
        """The bindings ``acl_filter`` matches, in the broker's order."""
        return self.wire.describe_acls(acl_filter)

    def create_acls(self, rules: list[AclRule]) -> dict[AclRule, BrokerError | None]:
        """One CreateAcls for ``rules``; each rule's error, or None when the broker created it."""
        return self.wire.create_acls(rules)

    def delete_acls(self, filters: list[AclFilter]) -> list[list[AclRule]]:
        """One DeleteAcls for ``filters``: the bindings each filter deleted, in ``filters``' order;
        BrokerRejected for the first filter the broker refused."""
        return self.wire.delete_acls(filters)

    # -- transactions: on kcli's own connection (librdkafka has no admin call for them) ----
    def list_transactions(self, producer_ids: list[int] | None = None, duration_ms: int | None = None,
                          pattern: str | None = None):
        """ListTransactions to every broker (WireClient.list_transactions)."""
        return self.wire.list_transactions(producer_ids, duration_ms, pattern)

    def describe_transactions(self, ids: list[str]):
        """DescribeTransactions to each id's coordinator: a description or a BrokerError per id."""
        return self.wire.describe_transactions(ids)

    def describe_producers(self, partitions: list[tuple[str, int]], broker: int | None = None):
        """DescribeProducers to each partition's leader (or ``broker``): producers or a BrokerError."""
        return self.wire.describe_producers(partitions, broker)

    def abort_transaction(self, topic: str, partition: int, producer_id: int, producer_epoch: int,
                          coordinator_epoch: int) -> None:
        """An abort marker for the producer's open transaction on the partition (WriteTxnMarkers)."""
        self.wire.abort_transaction(topic, partition, producer_id, producer_epoch, coordinator_epoch)

    def last_stable_offsets(self, partitions: list[tuple[str, int]]) -> dict[tuple[str, int], int]:
        """ListOffsets latest as read_committed, one request per leader (WireClient.last_stable_offsets)."""
        return self.wire.last_stable_offsets(partitions)

    def fence_producer(self, transactional_id: str) -> None:
        """InitProducerId for the id with no producer: its producer fenced, its transaction aborted."""
        self.wire.fence_producer(transactional_id)

    # -- helpers --------------------------------------------------------------------------
    def _raise_first(self, futures: dict, request: str, name: str) -> None:
        """Each future's result; the first error raised (a refusal as NotAuthorized: ``request``,
        Kafka's API name, on ``name``)."""
        for fut in futures.values():
            try:
                self._result(fut)
            except BrokerRejected as exc:
                refusal = not_authorized(exc.error, request, name, self.settings.principal())
                if refusal is None:
                    raise
                raise refusal from None

    def _per_item(self, futures: dict, request: str) -> dict[str, BrokerError | None]:
        """Each item's error (None: done); a refusal worded as NotAuthorized words it."""
        result: dict[str, BrokerError | None] = {}
        for key, fut in futures.items():
            try:
                self._result(fut)
                result[key] = None
            except BrokerRejected as exc:
                refusal = not_authorized(exc.error, request, key, self.settings.principal())
                result[key] = exc.error if refusal is None else replace(exc.error, message=refusal.message)
        return result


_STATES = {"STABLE": "Stable", "EMPTY": "Empty", "DEAD": "Dead",
           "PREPARING_REBALANCING": "PreparingRebalance", "COMPLETING_REBALANCING": "CompletingRebalance"}


def _state_name(state) -> str:
    return _STATES.get(getattr(state, "name", ""), "Unknown")


_KNOWN_STATES = {name: name for name in GROUP_STATES}


def _consumer_listings(listed) -> list[GroupListing]:
    return [GroupListing(gid, _known_state(state), "Consumer" if gtype and gtype.lower() == "consumer" else "Classic")
            for gid, state, gtype in listed]


def _known_state(state: str | None) -> str:
    """A group state the broker named, as the Java admin client names it (GroupState.parse): one
    Kafka has no name for, or none (ListGroups below v4), is "Unknown"."""
    return _KNOWN_STATES.get(state or "", "Unknown")


def _type_name(gtype) -> str:
    return "Consumer" if getattr(gtype, "name", "") == "CONSUMER" else "Classic"


def _broker_error(exc) -> BrokerError:
    """A KafkaException (a future's error) or a KafkaError (a result's list of errors)."""
    from confluent_kafka import KafkaError, KafkaException

    if isinstance(exc, KafkaException) and exc.args and hasattr(exc.args[0], "code"):
        exc = exc.args[0]
    if isinstance(exc, KafkaError):
        return BrokerError(exc.code(), exc.name(), exc.str())
    return BrokerError(KafkaError._FAIL, type(exc).__name__, str(exc))


def _worded(code: int) -> BrokerError:
    """A broker's error code named and worded as librdkafka names them (every per-item error)."""
    from confluent_kafka import KafkaError

    return BrokerError(code, KafkaError(code).name(), KafkaError(code).str())


def _consumer_protocol(d: GroupDescription, g, version: int) -> None:
    """``d`` with a ConsumerGroupDescribe DescribedGroup's fields (at ``version``)."""
    d.type, d.state = "Consumer", g.group_state
    d.assignor = g.assignor_name or d.assignor
    d.group_epoch, d.target_assignment_epoch = g.group_epoch, g.assignment_epoch
    d.creation_time_ms = g.group_creation_time_ms if version >= 2 else None
    d.members = [GroupMember(
        m.member_id, m.client_id, m.client_host, _assigned(m.assignment), m.instance_id,
        member_epoch=m.member_epoch, target_assignment=_assigned(m.target_assignment),
        upgraded={0: False, 1: True}.get(m.member_type) if version >= 1 else None)
        for m in g.members]


def _decoded_assignment(data: bytes | None) -> list[tuple[str, int]]:
    """A classic consumer's assignment (ConsumerProtocolAssignment bytes) as (topic, partition)
    pairs; none for empty or unreadable bytes (as librdkafka: the member is still shown)."""
    if not data:
        return []
    from kafka.protocol.consumer.metadata import ConsumerProtocolAssignment

    try:
        a = ConsumerProtocolAssignment.decode(data)
    except Exception:  # noqa: BLE001 - a member's bytes that are not the consumer protocol's
        return []
    return sorted((t.topic, p) for t in a.assigned_partitions for p in t.partitions)


def _tps(assignment) -> list[tuple[str, int]]:
    tps = assignment.topic_partitions if assignment is not None else []
    return sorted((tp.topic, tp.partition) for tp in tps)


def _assigned(assignment) -> list[tuple[str, int]]:
    """A ConsumerGroupDescribe Assignment as (topic, partition) pairs."""
    if assignment is None:
        return []
    return sorted((t.topic_name, p) for t in assignment.topic_partitions for p in t.partitions)
