"""describe cluster (kafka-cluster cluster-id, kafka-broker-api-versions' broker list, the Java
AdminClient's describeCluster)."""

from __future__ import annotations

import typer

from kcli.cli.context import out, state


def describe_cluster(
    api_versions: bool = typer.Option(False, "--api-versions",
                                      help="Each live broker's API version ranges beside what kcli needs."),
):
    """The cluster id, the controller and every broker: id, host, port, rack, fenced or not
    (DescribeCluster v2, Kafka 4.0 on; `?` where the broker cannot say); then the finalized
    feature levels and, in JSON, each feature's supported range (kafka-features describe); then
    the KRaft metadata quorum (kafka-metadata-quorum describe --status and --replication): the
    leader, its epoch, the high watermark, the furthest follower's lag, and each voter and
    observer with its log end offset, lag and last fetch and caught-up times (one line where
    the broker does not serve DescribeQuorum).

    --api-versions: one row per API kcli sends, who sends it (kcli or librdkafka), the version
    a kcli feature needs and its KIP, and each broker's range, `!` after one short of it."""
    from kcli.ops import cluster as lib
    from kcli.render import cluster as view

    if api_versions:
        view.render_api_versions(out(), lib.api_versions(state().admin()))
        return
    view.render_cluster(out(), lib.describe(state().admin()))
