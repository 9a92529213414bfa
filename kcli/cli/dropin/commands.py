"""The drop-ins as typer commands, for ``kcli --help``, the man pages and completion: each only
hands its words to ``kcli.cli.dropin.run`` (a command line reaches ``run`` before typer does,
``kcli.cli.main.run``)."""

from __future__ import annotations

import typer


def _run(tool: str, args: list[str]) -> int:
    from kcli.cli.context import state
    from kcli.cli.dropin.run import run

    st = state()
    return run(tool, list(args), st.stdout, st.stderr)


def kafka_topics(ctx: typer.Context):
    """kafka-topics' own command line (--list, --describe, --create, --alter, --delete);
    CreationTimeMs per partition (KIP-1327)."""
    return _run("kafka-topics", ctx.args)


def kafka_consumer_groups(ctx: typer.Context):
    """kafka-consumer-groups' own command line; GROUP-CREATION-TIME and --to-start-time (KIP-1282)."""
    return _run("kafka-consumer-groups", ctx.args)


def kafka_get_offsets(ctx: typer.Context):
    """kafka-get-offsets' own command line (--topic, --partitions, --topic-partitions, --time)."""
    return _run("kafka-get-offsets", ctx.args)


def kafka_configs(ctx: typer.Context):
    """kafka-configs' own command line for topics, brokers and the broker defaults, and the client
    quotas of users, clients and ips."""
    return _run("kafka-configs", ctx.args)


def kafka_acls(ctx: typer.Context):
    """kafka-acls' own command line (--list, --add, --remove); kcli's ACL linter warns on stderr."""
    return _run("kafka-acls", ctx.args)


def kafka_delete_records(ctx: typer.Context):
    """kafka-delete-records' own command line (--offset-json-file): deletes at once, as the Java tool."""
    return _run("kafka-delete-records", ctx.args)


def kafka_log_dirs(ctx: typer.Context):
    """kafka-log-dirs' own command line (--describe): each broker's log dirs and replica sizes as JSON."""
    return _run("kafka-log-dirs", ctx.args)


def kafka_cluster(ctx: typer.Context):
    """kafka-cluster's own command line (cluster-id, list-endpoints, unregister,
    unregister-controller, api-versions)."""
    return _run("kafka-cluster", ctx.args)


def kafka_streams_groups(ctx: typer.Context):
    """kafka-streams-groups' own command line (Kafka Console applications' groups);
    GROUP-CREATION-TIME and --to-start-time (KIP-1282)."""
    return _run("kafka-streams-groups", ctx.args)


def kafka_transactions(ctx: typer.Context):
    """kafka-transactions' own command line (list, describe, describe-producers, find-hanging,
    abort, forceTerminateTransaction)."""
    return _run("kafka-transactions", ctx.args)


def kafka_leader_election(ctx: typer.Context):
    """kafka-leader-election's own command line (--election-type preferred|unclean, --topic and
    --partition, --all-topic-partitions, --path-to-json-file)."""
    return _run("kafka-leader-election", ctx.args)


def kafka_reassign_partitions(ctx: typer.Context):
    """kafka-reassign-partitions' own command line (--generate, --execute with --throttle, --verify,
    --cancel, --list); --execute writes a rollback file first."""
    return _run("kafka-reassign-partitions", ctx.args)


def kafka_share_groups(ctx: typer.Context):
    """kafka-share-groups' own command line (share groups, KIP-932: --list, --describe,
    --reset-offsets, --delete-offsets, --delete)."""
    return _run("kafka-share-groups", ctx.args)


def kafka_metadata_quorum(ctx: typer.Context):
    """kafka-metadata-quorum's own command line (describe --status, --replication [--human-readable]):
    the KRaft metadata quorum through a broker."""
    return _run("kafka-metadata-quorum", ctx.args)


def kafka_features(ctx: typer.Context):
    """kafka-features' own command line (describe, upgrade, downgrade, disable with --dry-run,
    version-mapping, feature-dependencies): the cluster's feature levels (KIP-584)."""
    return _run("kafka-features", ctx.args)
