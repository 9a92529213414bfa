"""describe cluster: the cluster id, the controller and the brokers (fenced ones too, where the
broker says: DescribeCluster v2)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.admin import Admin
    from kcli.model import ClusterDescription


def describe(admin: Admin) -> ClusterDescription:
    return admin.describe_cluster()
