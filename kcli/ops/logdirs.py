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


def leader_sizes(admin: Admin, leaders: dict[tuple[str, int], int | None]) -> dict[tuple[str, int], int | None]:
    """The size rule of every view but describe log-dirs: a partition's size is the bytes of its
    leader's replica (not a future one), from one DescribeLogDirs per leader asking only for the
    partitions it leads (no leader: no request, size None). A refusal (not authorized to
    DESCRIBE the cluster: an error from v3, an answer without log dirs before; a broker without
    DescribeLogDirs; no answer) or a failed log dir leaves those sizes None and says why in one
    Warn line (``admin.warn``): the view is still shown."""
    sizes: dict[tuple[str, int], int | None] = dict.fromkeys(leaders)
    asked: dict[int, list[tuple[str, int]]] = {}
    for tp, leader in leaders.items():
        if leader is not None and leader >= 0:
            asked.setdefault(leader, []).append(tp)
    if not asked:
        return sizes
    try:
        dirs = admin.log_dirs(sorted(asked), asked)
    except OperationError as exc:
        admin.warn(f"Sizes unknown: {exc.message}")
        return sizes
    silent = sorted(set(asked) - {d.broker for d in dirs})
    if silent:                  # before v3 (Kafka 3.0) a broker refuses with an answer without log dirs
        admin.warn(f"Sizes unknown: broker {', '.join(map(str, silent))} reported no log dir "
                   "(not authorized to DESCRIBE the cluster?)")
    failed = [f"log dir {d.log_dir} of broker {d.broker} (error code {d.error_code})" for d in dirs if d.error_code]
    if failed:
        admin.warn("Sizes unknown in the failed " + ", ".join(failed))
    for d in dirs:
        for r in d.replicas:
            if not r.future and leaders.get((r.topic, r.partition)) == d.broker:
                sizes[r.topic, r.partition] = r.size_bytes
    return sizes


def live_brokers(admin: Admin) -> list[int]:
    """The brokers DescribeLogDirs can be sent to."""
    return admin.broker_ids()


def log_dirs(admin: Admin, brokers: list[int]) -> list[LogDirInfo]:
    """Each log dir of ``brokers`` with its error and replicas, in the brokers' answers' order."""
    return admin.log_dirs(brokers)
