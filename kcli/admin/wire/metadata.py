"""Metadata and topics on kcli's own connection: DescribeTopicPartitions v1 (CreationTimeMs,
KIP-1327), Metadata v14 (PartitionAgeMs, KIP-1327), and beside them what ``describe topics`` also
needs (the topic names, the Metadata fallback for brokers without DescribeTopicPartitions), so
that command opens one connection; the partition leaders the other families send to."""

from __future__ import annotations

import base64

from kcli.admin.wire.base import WireBase, error_name
from kcli.errors import BrokerRejected, UnsupportedByBroker
from kcli.model import (INTERNAL_TOPICS, BrokerError, BrokerInfo, ClusterDescription, LogDirInfo, PartitionInfo,
                        FeatureLevels, QuorumDescription, QuorumReplica, ReplicaLogDir, TopicInfo)

PARTITION_LIMIT = 2000
UNKNOWN_TOPIC_OR_PARTITION = 3


def kafka_uuid(value) -> str | None:
    """A topic id as Kafka prints it (Uuid.toString: URL-safe base64, no padding)."""
    if value is None or value.int == 0:
        return None
    return base64.urlsafe_b64encode(value.bytes).decode().rstrip("=")


def _node(node_id: int) -> int | None:
    return None if node_id < 0 else node_id


def _known(ms: int) -> int | None:
    return None if ms < 0 else ms


def topic_error(topic: str, code: int) -> BrokerRejected:
    """A topic the broker described with an error (UNKNOWN_TOPIC_OR_PARTITION...): Kafka's code and name."""
    name = error_name(code)
    return BrokerRejected(BrokerError(code, name, f"Topic '{topic}': {name}"))


class MetadataRequests(WireBase):
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
                    raise (self.refused(t.error_code, "DescribeTopicPartitions", t.name)
                           or topic_error(t.name, t.error_code))
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
        """One Metadata request (every topic for None), never creating a topic, at ``version`` or
        the highest without a tag on every partition (kcli.protocol.UNTAGGED_METADATA_VERSION);
        its brokers and cluster id are kept for this client (Wire.learn_cluster)."""
        Req = self.proto.MetadataRequest
        topics_field = None if topics is None else [Req.MetadataRequestTopic(name=t) for t in topics]
        if version is None:
            version = min(self._version(Req, "Metadata"), self.proto.UNTAGGED_METADATA_VERSION)
        resp = self.send(Req(version=version,
                             topics=topics_field, allow_auto_topic_creation=False,
                             include_topic_authorized_operations=False))
        self._wire.learn_cluster(resp)
        return resp

    def cluster_metadata(self):
        """The cluster-wide part of a Metadata answer (brokers, cluster id: Wire.learn_cluster's
        ClusterPart): of the answer this client already read, whatever topics it was for, else of
        one Metadata request for no topic. A reset asked for the coordinator's address, then the
        brokers, in two identical requests before this."""
        if self._wire.cluster is None:
            self._metadata([])                           # learned: Wire.learn_cluster
        return self._wire.cluster

    def describe_cluster(self) -> ClusterDescription:
        """DescribeCluster at the highest common version (v2: the fenced brokers too, KIP-1073);
        a broker without it (before 2.8) answers from Metadata, which names only live brokers."""
        Req = self.proto.DescribeClusterRequest
        version = self.max_version(Req)
        if version is None:
            md = self.cluster_metadata()
            return ClusterDescription(getattr(md, "cluster_id", None), _node(getattr(md, "controller_id", -1)),
                                      sorted((BrokerInfo(b.node_id, b.host, b.port, b.rack) for b in md.brokers),
                                             key=lambda b: b.node_id), fenced_known=False,
                                      finalized_features=dict(self._wire.finalized_features),
                                      supported_features=dict(self._wire.supported_features))
        fields: dict[str, object] = dict(include_cluster_authorized_operations=False)
        if version >= 1:
            fields["endpoint_type"] = 1                  # brokers
        if version >= 2:
            fields["include_fenced_brokers"] = True
        resp = self.send(Req(version=version, **fields))
        if resp.error_code:
            raise BrokerRejected(BrokerError(resp.error_code, error_name(resp.error_code),
                                             resp.error_message or error_name(resp.error_code)))
        brokers = [BrokerInfo(b.broker_id, b.host, b.port, b.rack, bool(getattr(b, "is_fenced", False)))
                   for b in resp.brokers]
        return ClusterDescription(resp.cluster_id, _node(resp.controller_id), sorted(brokers, key=lambda b: b.node_id),
                                  fenced_known=version >= 2, finalized_features=dict(self._wire.finalized_features),
                                  supported_features=dict(self._wire.supported_features))

    def unregister_node(self, kind: str, node_id: int) -> BrokerError | None:
        """UnregisterBroker (``kind`` "broker") or UnregisterController ("controller") of
        ``node_id``, to any broker (it forwards to the controller): the broker's error, if any;
        UnsupportedByBroker where the broker lacks the API."""
        from kcli import protocol

        api = "UnregisterBroker" if kind == "broker" else "UnregisterController"
        Req = getattr(protocol, f"{api}Request")
        version = self._version(Req, api)
        resp = self.send(Req(version=version, **{f"{kind}_id": node_id}))
        if resp.error_code:
            return BrokerError(resp.error_code, error_name(resp.error_code),
                               resp.error_message or error_name(resp.error_code))
        return None

    def describe_quorum(self) -> QuorumDescription | None:
        """DescribeQuorum of ``__cluster_metadata`` partition 0 (any broker forwards it to the
        quorum's leader), at the highest common version; None where the broker lacks the API."""
        Req = self.proto.DescribeQuorumRequest
        version = self.max_version(Req)
        if version is None:
            return None
        resp = self.send(Req(version=version, topics=[Req.TopicData(
            topic_name="__cluster_metadata", partitions=[Req.TopicData.PartitionData(partition_index=0)])]))
        code = resp.error_code or next((p.error_code for t in resp.topics for p in t.partitions), 0)
        if code or not resp.topics or not resp.topics[0].partitions:
            message = resp.error_message or next((p.error_message for t in resp.topics for p in t.partitions
                                                  if p.error_message), None)
            raise (self.refused(code, "DescribeQuorum", None)
                   or BrokerRejected(BrokerError(code, error_name(code), message or error_name(code))))
        p = resp.topics[0].partitions[0]

        def replicas(states) -> list[QuorumReplica]:
            return [QuorumReplica(r.replica_id, kafka_uuid(getattr(r, "replica_directory_id", None))
                                  or "AAAAAAAAAAAAAAAAAAAAAA", r.log_end_offset,
                                  _known(getattr(r, "last_fetch_timestamp", -1)),
                                  _known(getattr(r, "last_caught_up_timestamp", -1))) for r in states]

        endpoints = {n.node_id: [f"{e.name}://{e.host}:{e.port}" for e in n.listeners]
                     for n in getattr(resp, "nodes", None) or []}
        return QuorumDescription(p.leader_id, p.leader_epoch, p.high_watermark, replicas(p.current_voters),
                                 replicas(p.observers), endpoints)

    def describe_features(self, node_id: int | None = None) -> FeatureLevels:
        """The features ApiVersions named on the connection to ``node_id`` (None: any broker)."""
        conn = self._answered("ApiVersionsRequest", lambda: self._wire.node_features(node_id))
        epoch = conn.finalized_features_epoch
        return FeatureLevels(dict(conn.finalized_features), dict(conn.supported_features),
                             epoch if epoch >= 0 else None)

    def update_features(self, updates: list[tuple[str, int, int]], validate_only: bool) -> dict[str, str | None]:
        """UpdateFeatures (feature, level, upgrade type: 1 upgrade, 2 safe, 3 unsafe downgrade)
        at the highest common version, in ``updates``' order; each feature's error message (None:
        done, or would be with ``validate_only``). A top-level error is every feature's, as the
        Java AdminClient reports it."""
        Req = self.proto.UpdateFeaturesRequest
        version = self._version(Req, "UpdateFeatures")
        if version == 0 and any(kind == 3 for _, _, kind in updates):
            raise UnsupportedByBroker("The broker does not support unsafe downgrades (UpdateFeatures v1)")
        keys = [Req.FeatureUpdateKey(feature=name, max_version_level=level, upgrade_type=kind,
                                     allow_downgrade=kind != 1) for name, level, kind in updates]
        resp = self.send(Req(version=version, timeout_ms=self.settings.timeout_ms, feature_updates=keys,
                             validate_only=validate_only))
        if resp.error_code:
            message = resp.error_message or error_name(resp.error_code)
            return {name: message for name, _, _ in updates}
        results = {r.feature: (r.error_message or error_name(r.error_code)) if r.error_code else None
                   for r in getattr(resp, "results", None) or []}
        return {name: results.get(name) for name, _, _ in updates}

    def log_dirs(self, node_ids: list[int], partitions: dict[int, list[tuple[str, int]]] | None = None
                 ) -> list[LogDirInfo]:
        """DescribeLogDirs to each of ``node_ids``, sent together (send_each), at the highest
        common version, for every topic or, with ``partitions``, for each node's own partitions
        only: each broker's log dirs, in its answer's order, each with its error code and
        replicas; a broker that refused the request raises."""
        Req = self.proto.DescribeLogDirsRequest
        version = self._version(Req, "DescribeLogDirs")

        def asked(node: int):
            if partitions is None:
                return None
            by_topic: dict[str, list[int]] = {}
            for t, p in partitions.get(node, []):
                by_topic.setdefault(t, []).append(p)
            return [Req.DescribableLogDirTopic(topic=t, partitions=sorted(ps)) for t, ps in sorted(by_topic.items())]

        answers = self.send_each([(n, Req(version=version, topics=asked(n))) for n in node_ids])
        dirs = []
        for node, resp in zip(node_ids, answers):
            code = getattr(resp, "error_code", 0)
            if code:
                raise self.refused(code, "DescribeLogDirs", None) or BrokerRejected(BrokerError(
                    code, error_name(code), f"DescribeLogDirs on broker {node}: {error_name(code)}"))
            dirs += [LogDirInfo(node, d.log_dir, d.error_code, [
                ReplicaLogDir(node, d.log_dir, t.name, p.partition_index, p.partition_size, p.offset_lag,
                              p.is_future_key) for t in d.topics for p in t.partitions]) for d in resp.results]
        return dirs

    def describe_log_dirs(self, node_ids: list[int]) -> list[ReplicaLogDir]:
        """Every replica of each broker's log dirs (``log_dirs``); a log dir that failed raises."""
        rows = []
        for d in self.log_dirs(node_ids):
            if d.error_code:
                raise BrokerRejected(BrokerError(d.error_code, error_name(d.error_code), f"Log dir {d.log_dir} "
                                                 f"of broker {d.broker}: {error_name(d.error_code)}"))
            rows += d.replicas
        return rows

    def topic_names(self) -> list[str]:
        return sorted(t.name for t in self._metadata(None).topics)

    def cluster_id(self) -> str | None:
        """From a Metadata answer (None below v2, which has no cluster id)."""
        return getattr(self.cluster_metadata(), "cluster_id", None)

    def broker_ids(self) -> list[int]:
        """The live brokers: those in the cluster metadata (whose addresses the connections to
        them then use: no second Metadata)."""
        return sorted(b.node_id for b in self.cluster_metadata().brokers)

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
                code = t.error_code if t else UNKNOWN_TOPIC_OR_PARTITION
                raise self.refused(code, "Metadata", name) or topic_error(name, code)
            out.append(TopicInfo(name, kafka_uuid(getattr(t, "topic_id", None)), [
                PartitionInfo(p.partition_index, p.leader_id if p.leader_id >= 0 else None,
                              list(p.replica_nodes), list(p.isr_nodes), leader_epoch=p.leader_epoch)
                for p in sorted(t.partitions, key=lambda p: p.partition_index)]))
        return out

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

    def partition_leaders(self, topics: list[str], refresh: bool = False) -> dict[str, dict[int, int | None]]:
        """Leader per partition (None: no leader) of the named topics that exist: one Metadata
        for the topics this client has not asked about yet, or all of them with ``refresh`` (after a leader change)."""
        wanted = sorted(set(topics) if refresh else set(topics) - set(self._leaders))
        if wanted:
            self._learn_leaders(wanted)
        return {t: self._leaders[t] for t in topics if t in self._leaders}

    def partition_counts(self) -> dict[str, int]:
        """Partition count per topic, every topic: one Metadata, whose leaders are remembered."""
        return {t: len(parts) for t, parts in self._learn_leaders(None).items()}

    def _learn_leaders(self, topics: list[str] | None) -> dict[str, dict[int, int | None]]:
        """Metadata for ``topics`` (None: every topic); the leaders of the topics it describes,
        remembered."""
        resp = self._metadata(topics)
        learned = {t.name: {p.partition_index: (p.leader_id if p.leader_id >= 0 else None) for p in t.partitions}
                   for t in resp.topics if not t.error_code}
        self._leaders.update(learned)
        return learned
