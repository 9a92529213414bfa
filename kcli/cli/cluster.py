"""describe cluster (kafka-cluster cluster-id, kafka-broker-api-versions' broker list, the Java
AdminClient's describeCluster)."""

from __future__ import annotations

from kcli.cli.context import out, state


def describe_cluster():
    """The cluster id, the controller and every broker: id, host, port, rack, fenced or not
    (DescribeCluster v2, Kafka 4.0 on; `?` where the broker cannot say); then the finalized
    feature levels and, in JSON, each feature's supported range (kafka-features describe)."""
    from kcli.ops import cluster as lib
    from kcli.render import cluster as view

    view.render_cluster(out(), lib.describe(state().admin()))
