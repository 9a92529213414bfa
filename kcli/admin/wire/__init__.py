"""kcli's own Kafka-protocol client: kafka-python's protocol messages (``kcli.protocol``) over
kcli's own blocking connections (``connection``), for the requests librdkafka cannot send as kcli
needs them (the rule: ``kcli.admin``). ``client.WireClient`` composes one class per API family:

- ``base``: the connection, version negotiation and ``send`` by a deadline; ApiVersions;
- ``metadata``: Metadata and DescribeTopicPartitions (topics, leaders, CreationTimeMs,
  PartitionAgeMs);
- ``offsets``: ListOffsets and the Fetch-based record times;
- ``coordinators``: FindCoordinator and the retry rule of every group request;
- ``groups``: ConsumerGroupDescribe, DescribeGroups, the streams groups, ConsumerGroupHeartbeat;
- ``group_offsets``: OffsetFetch, OffsetCommit, OffsetDelete;
- ``configs``: DescribeConfigs, IncrementalAlterConfigs;
- ``produce``: one Produce of a record batch;
- ``acls``: DescribeAcls, CreateAcls, DeleteAcls.
- ``share``: the share groups (KIP-932): ShareGroupDescribe, DescribeShareGroupOffsets,
  AlterShareGroupOffsets, DeleteShareGroupOffsets.

kafka-python loads only when a client is built or a request sent, never on import: a command that
sends nothing here (``kcli --help``) pays nothing for it.
"""

from __future__ import annotations

from kcli.admin.wire.client import WireClient

__all__ = ["WireClient"]
