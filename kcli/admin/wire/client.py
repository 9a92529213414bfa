"""``WireClient``: kcli's own Kafka-protocol client, one class composed of the request families
(``metadata``, ``offsets``, ``coordinators``, ``groups``, ``group_offsets``, ``configs``,
``produce``, ``acls``, ``transactions``, ``replicas``, ``quotas``, ``share``), all on one ``WireBase``:
one set of connections, negotiated versions, known leaders and coordinators for the client's life."""

from __future__ import annotations

from kcli.admin.wire.acls import AclRequests
from kcli.admin.wire.configs import ConfigRequests
from kcli.admin.wire.group_offsets import GroupOffsetRequests
from kcli.admin.wire.groups import GroupRequests
from kcli.admin.wire.offsets import OffsetRequests
from kcli.admin.wire.produce import ProduceRequests
from kcli.admin.wire.quotas import QuotaRequests
from kcli.admin.wire.replicas import ReplicaRequests
from kcli.admin.wire.share import ShareRequests
from kcli.admin.wire.transactions import TransactionRequests


class WireClient(TransactionRequests, ShareRequests, GroupRequests, GroupOffsetRequests, OffsetRequests, ConfigRequests,
                 ProduceRequests, AclRequests, ReplicaRequests, QuotaRequests):
    """Every request kcli sends itself, over ``kcli.admin.wire.connection``; see the package."""
