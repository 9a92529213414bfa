"""The drop-in commands: ``kcli kafka-topics``, ``kcli kafka-consumer-groups``, ``kcli
kafka-get-offsets``, ``kcli kafka-configs`` and ``kcli kafka-streams-groups`` take the Java tools' own command lines (Apache
Kafka 4.4's options, jopt-simple's grammar, the tools' checks and messages) and print what the
tools print, plus the KIP additions (CreationTimeMs, KIP-1327; GROUP-CREATION-TIME and
``--to-start-time``, KIP-1282). Each is also a console script (``kcli-kafka-topics``...), never
named like Apache's scripts.

``kcli.cli.dropin.jopt`` is the grammar, ``topics``/``groups``/``offsets``/``configs``/``streams`` each tool's
options and checks (pure), ``run`` the execution on kcli's operations and plain views. The
commands below only hand their words over: ``kcli.cli.main.run`` sends a drop-in command line
to ``run`` untouched, with kcli's global options given before the tool's name (``run.Before``)."""

from __future__ import annotations

import sys

import typer

RAW_SETTINGS = {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}


def _run(tool: str, args: list[str]) -> int:
    from kcli.cli.context import state
    from kcli.cli.dropin.run import run

    st = state()
    return run(tool, list(args), st.stdout, st.stderr)


def kafka_topics(ctx: typer.Context):
    """kafka-topics' own command line (--list, --describe, --create, --alter, --delete); CreationTimeMs per partition (KIP-1327)."""
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
    """kafka-streams-groups' own command line (Kafka Streams applications' groups); GROUP-CREATION-TIME and --to-start-time (KIP-1282)."""
    return _run("kafka-streams-groups", ctx.args)


def _script(tool: str) -> None:
    from kcli.cli.main import main

    main([tool, *sys.argv[1:]])


def kafka_topics_main() -> None:
    """The ``kcli-kafka-topics`` console script."""
    _script("kafka-topics")


def kafka_consumer_groups_main() -> None:
    _script("kafka-consumer-groups")


def kafka_get_offsets_main() -> None:
    _script("kafka-get-offsets")


def kafka_configs_main() -> None:
    _script("kafka-configs")


def kafka_streams_groups_main() -> None:
    _script("kafka-streams-groups")
