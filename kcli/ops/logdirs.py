"""describe log-dirs (kafka-log-dirs --describe): each replica's size in bytes per broker and log
dir, a future replica's offset lag; the brokers and topics chosen, checked before any request."""

from __future__ import annotations

from kcli.errors import OperationError
from kcli.specs import check_topic_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.admin import Admin
    from kcli.model import LogDirInfo, ReplicaLogDir


def check_topics(topics: list[str]) -> None:
    for name in topics:
        check_topic_name(name)


def describe(admin: Admin, brokers: list[int], topics: list[str]) -> list[ReplicaLogDir]:
    """The replicas of ``topics`` (all for none) on ``brokers`` (every live one for none),
    sorted by topic, partition and broker; a broker that is not live is refused."""
    live = admin.broker_ids()
    missing = sorted(set(brokers) - set(live))
    if missing:
        raise OperationError(f"No live broker {', '.join(map(str, missing))} (live: {', '.join(map(str, live))})")
    rows = admin.describe_log_dirs(sorted(set(brokers)) if brokers else live)
    if topics:
        rows = [r for r in rows if r.topic in topics]
    return sorted(rows, key=lambda r: (r.topic, r.partition, r.broker, r.future))



def live_brokers(admin: Admin) -> list[int]:
    """The brokers DescribeLogDirs can be sent to."""
    return admin.broker_ids()


def log_dirs(admin: Admin, brokers: list[int]) -> list[LogDirInfo]:
    """Each log dir of ``brokers`` with its error and replicas, in the brokers' answers' order."""
    return admin.log_dirs(brokers)
