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
    """kafka-configs' own command line for topics, brokers and the broker defaults."""
    return _run("kafka-configs", ctx.args)


def kafka_streams_groups(ctx: typer.Context):
    """kafka-streams-groups' own command line (Kafka Console applications' groups);
    GROUP-CREATION-TIME and --to-start-time (KIP-1282)."""
    return _run("kafka-streams-groups", ctx.args)


def kafka_share_groups(ctx: typer.Context):
    """kafka-share-groups' own command line (share groups, KIP-932: --list, --describe,
    --reset-offsets, --delete-offsets, --delete)."""
    return _run("kafka-share-groups", ctx.args)
