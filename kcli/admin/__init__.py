"""The admin adapter: the one interface the operations (``kcli.ops``), the pipeline and the demo
use to talk to a cluster, and nothing else.

- ``Admin`` (below): every call an operation may make, typed. Values in and out are plain
  ``kcli.model`` dataclasses; a request the cluster answers with an error raises
  ``kcli.errors.BrokerRejected`` (Kafka's error code and name) or reports it per item.
- ``client.KafkaAdmin``: the implementation. Which client sends each call is decided there, by
  the rule below, and nowhere else: callers never choose a client.
- ``wire``: kcli's own Kafka-protocol client (``wire.WireClient``, one module per API family):
  kafka-python's protocol messages over kcli's own blocking connections (``wire.connection``).
- ``fallback``: never worse than librdkafka. When kcli's own client cannot negotiate with a
  broker or decode its answer (``kcli.errors.UnreadableAnswer``), every call librdkafka can
  serve (topic names, brokers, cluster id, partition counts and leaders, describe topics,
  describe configs, list offsets, committed offsets, alter group offsets) is served by
  librdkafka, with one ``Warn:`` line per command naming the answer that could not be read; a
  KIP-only answer (CreationTimeMs, PartitionAgeMs, GroupCreationTimeMs, the consumer-protocol
  group fields) is reported as for a broker too old to give it, with a ``Warn:`` line naming
  that answer. Only an unreadable answer falls back: a broker that does not answer, or answers
  with an error, is not asked again through librdkafka. The rule is applied in one place, the
  ``or_librdkafka``/``or_unavailable`` decorators on ``client.KafkaAdmin``'s methods.
- ``settings``: where and how to connect (``--command-config``, profiles), the one table that
  translates Java client properties for both clients, and the command's deadline.

The rule: a request goes over kcli's own connections (``wire``) when librdkafka cannot send it
as kcli needs it; every other request goes over librdkafka (confluent-kafka's AdminClient).
librdkafka cannot when kcli needs
  (a) a KIP field, version or API it does not expose: CreationTimeMs, PartitionAgeMs,
      GroupCreationTimeMs, the consumer-protocol and streams groups, ListOffsets -4/-5/-6,
      OffsetDelete, every config synonym, one Produce batch and one heartbeat as ``check broker``
      sends them;
  (b) one request per leader or coordinator whatever the number of groups or partitions, where
      librdkafka's requests grow faster (ListOffsets, OffsetFetch v8, OffsetCommit batches,
      ConsumerGroupDescribe and DescribeGroups, FindCoordinator v4);
  (c) a deadline of the call's own (an OffsetCommit by ``until``, leaving time to read back what
      got no answer) and request counts kcli decides, which the tests assert exactly;
  (d) a request it will not send as asked: Metadata for no topic (cluster id, brokers), a config
      resource named "" (the cluster-wide broker defaults); and one connection for a command
      that only reads (``describe topics`` never loads librdkafka: start-up, bench/cli_latency.py).
So every read and every change of committed offsets goes over ``wire``; librdkafka keeps the
changes to topics, partitions, a named resource's configs and groups (CreateTopics,
CreatePartitions, DeleteTopics, IncrementalAlterConfigs, DeleteGroups), where its request,
controller routing and retries are what the Java tools do and no KIP field is involved, and it
serves every read kcli's codec cannot decode (``fallback``).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable, Protocol

    from kcli.admin.settings import ClientSettings
    from kcli.model import (BrokerError, CommittedOffset, GroupDescription, GroupListing, HeartbeatAnswer,
                            LayoutReading, OffsetInfo, ProduceOutcome, RecordTime, ResourceConfig,
                            ShareGroupDescription, StreamsGroupDescription, TopicInfo)
else:
    Protocol = object                 # the interface is the type checkers'; at run time a plain class

TP = tuple[str, int]


class Admin(Protocol):
    settings: "ClientSettings"

    # -- cluster and topics
    def cluster_id(self) -> str | None: ...
    def topic_names(self) -> list[str]: ...
    def broker_ids(self) -> list[int]: ...
    def partition_counts(self) -> dict[str, int]: ...
    def partition_leaders(self, names: list[str]) -> dict[str, dict[int, int | None]]: ...
    def describe_topics(self, names: list[str], progress=None) -> list["TopicInfo"]: ...
    def partition_ages(self, topics: list[str]) -> dict[TP, int]: ...
    def partition_sightings(self, topics: list[str]) -> dict[TP, tuple[int | None, int]]: ...
    def create_topic(self, name: str, partitions: int | None, replication_factor: int | None,
                     configs: dict[str, str], assignment: list[list[int]] | None) -> None: ...
    def create_partitions(self, name: str, total: int, assignment: list[list[int]] | None) -> None: ...
    def delete_topics(self, names: list[str]) -> dict[str, "BrokerError | None"]: ...

    # -- configs
    def describe_configs(self, resources: list[tuple[str, str]]) -> list["ResourceConfig"]: ...
    def alter_configs(self, rtype: str, name: str, set_: dict[str, str], delete: list[str]) -> None: ...

    # -- offsets
    def list_offsets(self, partitions: Iterable[TP], time: int) -> list["OffsetInfo"]: ...
    def record_times(self, wanted: list[tuple[str, int, int]]) -> dict[tuple[str, int, int], "RecordTime"]: ...

    # -- consumer groups
    def list_groups(self) -> list["GroupListing"]: ...
    def describe_groups(self, group_ids: list[str]) -> list["GroupDescription"]: ...
    def group_creation_times(self, group_ids: list[str]) -> dict[str, int | None] | None: ...
    def committed_offsets(self, group_id: str, partitions: list[TP] | None = None) -> list["CommittedOffset"]: ...
    def committed_offsets_of_groups(self, group_ids: list[str], partitions: dict[str, list[TP]] | None = None
                                    ) -> dict[str, list["CommittedOffset"]]: ...
    def alter_group_offsets(self, group_id: str, offsets: dict[TP, int],
                            until: float | None = None) -> dict[TP, "BrokerError | None"]: ...
    def delete_groups(self, group_ids: list[str]) -> dict[str, "BrokerError | None"]: ...
    def delete_group_offsets(self, group_id: str, partitions: list[TP]) -> tuple: ...

    # -- streams groups (kcli's own connection: no client library has them)
    def list_streams_groups(self) -> list["GroupListing"]: ...
    def describe_streams_groups(self, group_ids: list[str],
                                errors: dict[str, str] | None = None) -> dict[str, "StreamsGroupDescription"]: ...

    def streams_topology_status(self, group_id: str) -> str: ...

    # -- share groups (KIP-932; kcli's own connection: no client library has them)
    def list_share_groups(self) -> list["GroupListing"]: ...
    def describe_share_groups(self, group_ids: list[str], errors: dict | None = None
                              ) -> dict[str, "ShareGroupDescription"]: ...
    def share_group_offsets(self, group_id: str) -> tuple: ...
    def share_group_offsets_of_groups(self, group_ids: list[str]) -> dict[str, tuple]: ...
    def alter_share_group_offsets(self, group_id: str, offsets: dict[TP, int]) -> tuple: ...
    def delete_share_group_offsets(self, group_id: str, topics: list[str]) -> tuple: ...

    # -- check broker (kcli's own connection)
    def advertised_version(self, api_key: int) -> int | None: ...
    def produce_batch(self, topic: str, partition: int,
                      records: list[tuple[int, bytes | None, bytes | None]]) -> "ProduceOutcome": ...
    def consumer_group_heartbeat(self, group_id: str, member_id: str, epoch: int,
                                 topics: list[str] | None) -> "HeartbeatAnswer": ...
    def advertised_range(self, api_key: int) -> tuple[int, int] | None: ...
    def consumer_group_heartbeat_layouts(self, group_id: str, member_id: str,
                                         topics: list[str]) -> list["LayoutReading"]: ...

    def warn(self, text: str) -> None: ...     # one ``Warn:`` line for the command's stderr

    def close(self) -> None: ...
