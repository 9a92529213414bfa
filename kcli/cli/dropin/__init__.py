"""The drop-in commands (``kcli kafka-topics``, ``kcli kafka-consumer-groups`` and the others
named in ``TOOLS``) take the Java tools' own command lines (Apache
Kafka 4.4's options, jopt-simple's grammar, the tools' checks and messages) and print what the
tools print, plus the KIP additions (CreationTimeMs, KIP-1327; GROUP-CREATION-TIME and
``--to-start-time``, KIP-1282). Each is also a console script (``kcli-kafka-topics``...), never
named like Apache's scripts.

``kcli.cli.dropin.jopt`` is the grammar (``argparse4j`` kafka-transactions', kafka-cluster's,
kafka-metadata-quorum's and kafka-features'); the module ``TOOLS`` names for each tool holds its
options and checks (pure), ``<tool>_run`` beside each its execution on kcli's operations and plain
views (``javawords``: the Java tools' words for a reset's warnings and refusals), ``run`` what
they share (the entry, kcli's global options, the connection). The typer commands
(``commands``) only hand their words over: ``kcli.cli.main.run`` sends a drop-in command line to
``run`` untouched, with kcli's global options given before the tool's name (``run.Before``)."""

from __future__ import annotations

import sys

# Nothing here imports typer: a drop-in command line (``kcli kafka-topics ...`` or a console
# script) runs without the native CLI's framework (``kcli.cli.main.run`` dispatches it first).
# Each tool's name and its grammar module (kcli.cli.dropin.<module>).
TOOLS = {"kafka-topics": "topics", "kafka-consumer-groups": "groups", "kafka-get-offsets": "offsets",
         "kafka-configs": "configs", "kafka-streams-groups": "streams", "kafka-acls": "acls",
         "kafka-transactions": "transactions", "kafka-delete-records": "records",
         "kafka-leader-election": "election", "kafka-share-groups": "share",
         "kafka-log-dirs": "logdirs", "kafka-cluster": "cluster",
         "kafka-metadata-quorum": "quorum", "kafka-features": "features",
         "kafka-reassign-partitions": "reassign"}
DROPINS = frozenset(TOOLS)


def _script(tool: str) -> None:
    from kcli.cli.main import main

    main([tool, *sys.argv[1:]], process=True)       # the process ends there: main's quick exit


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


def kafka_acls_main() -> None:
    _script("kafka-acls")
def kafka_transactions_main() -> None:
    _script("kafka-transactions")
def kafka_delete_records_main() -> None:
    _script("kafka-delete-records")
def kafka_leader_election_main() -> None:
    _script("kafka-leader-election")
def kafka_share_groups_main() -> None:
    _script("kafka-share-groups")
def kafka_log_dirs_main() -> None:
    _script("kafka-log-dirs")
def kafka_cluster_main() -> None:
    _script("kafka-cluster")


def kafka_metadata_quorum_main() -> None:
    _script("kafka-metadata-quorum")


def kafka_features_main() -> None:
    _script("kafka-features")


def kafka_reassign_partitions_main() -> None:
    _script("kafka-reassign-partitions")
