"""Group coordination for the embedded broker: classic groups (JoinGroup/SyncGroup), consumer-
protocol groups (KIP-848, with the KIP-1282 creation time) and committed offsets.

One ``GroupCoordinator`` serves a cluster; ``coordinator_for(cluster)`` returns it, creating it
(and recovering ``<data_dir>/groups``) on first use. With a data dir it is closed when the last
node of the cluster stops, and recovered from disk when a node serves groups again.

To create a consumer-protocol group whose creation time is unknown (-1, as for a group that
predates KIP-1282)::

    coordinator_for(cluster).create_consumer_group("legacy-group", creation_time_ms=-1)

or set ``cluster.record_creation_times = False`` while the group is first created.
"""

from __future__ import annotations

import weakref

from kcli.broker.groups.config import GroupConfig
from kcli.broker.groups.coordinator import GroupCoordinator

_COORDINATORS: "weakref.WeakKeyDictionary[object, GroupCoordinator]" = weakref.WeakKeyDictionary()


def coordinator_for(cluster) -> GroupCoordinator:
    coordinator = _COORDINATORS.get(cluster)
    if coordinator is None:
        coordinator = GroupCoordinator(weakref.proxy(cluster),
                                       GroupConfig.from_lookup(cluster.broker_config))
        _COORDINATORS[cluster] = coordinator
        cluster.node_listeners.append(_on_node_change_for(cluster))
    return coordinator


def forget_topic(cluster, name: str) -> None:
    """A deleted topic's committed offsets leave every group, as Kafka's group coordinator does
    when the controller deletes partitions (onPartitionsDeleted)."""
    coordinator = _COORDINATORS.get(cluster)
    if coordinator is not None:
        coordinator.forget_topic(name)


def _on_node_change_for(cluster):
    ref = weakref.ref(cluster)

    def on_node_change(node_id: int, up: bool) -> None:
        c = ref()
        if c is None or up or any(c.is_up(n) for n in c.node_ids) or c.data_dir is None:
            return
        coordinator = _COORDINATORS.pop(c, None)
        if coordinator is not None:
            coordinator.close()
            c.node_listeners.remove(on_node_change)

    return on_node_change


__all__ = ["GroupConfig", "GroupCoordinator", "coordinator_for"]
