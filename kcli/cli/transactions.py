"""The transactions commands: list, describe and abort (``check transactions``: kcli/cli/check.py)."""

from __future__ import annotations

import time
from typing import List, Optional

import typer

from kcli.cli.context import out, state


def list_transactions(
    older_than: Optional[str] = typer.Option(None, "--older-than",
                                             help="Only transactions running longer than this: 5m, PT1H; a bare "
                                                  "number is milliseconds."),
    pattern: Optional[str] = typer.Option(None, "--pattern", metavar="REGEX",
                                          help="Only transactional ids the broker matches with this regular "
                                               "expression (Java's syntax, checked by the broker)."),
):
    """List the transactional ids the coordinators know: coordinator, producer id, state
    (kafka-transactions list)."""
    from kcli.ops import transactions as lib
    from kcli.render import transactions as view

    older = lib.duration_ms("--older-than", older_than)
    view.render_list(out(), lib.listed(state().admin(), older, pattern))


def describe_transactions(
    ids: List[str] = typer.Argument(..., metavar="TRANSACTIONAL-ID...", help="The transactional ids."),
):
    """Describe transactional ids: producer, epoch, state, timeout, the transaction under way and
    its partitions (kafka-transactions describe). Exit 1 when an id is unknown."""
    from kcli.errors import OperationError
    from kcli.model import BrokerError
    from kcli.ops import transactions as lib
    from kcli.render import transactions as view

    found = lib.described(state().admin(), lib.checked_ids(ids))
    view.render_described(out(), found, int(time.time() * 1000))
    missing = [tid for tid, d in found.items() if isinstance(d, BrokerError)]
    if missing:
        raise OperationError(f"{len(missing)} of {len(found)} transactional id(s) not described: "
                             + ", ".join(missing))


def abort_transaction(
    topic: str = typer.Option(..., "--topic", "-t", help="The partition's topic."),
    partition: int = typer.Option(..., "--partition", "-p", help="The partition."),
    start_offset: int = typer.Option(..., "--start-offset",
                                     help="The offset the open transaction starts at (check transactions, "
                                          "START-OFFSET)."),
    execute: bool = typer.Option(False, "--execute", help="Write the abort marker; without it, a dry run."),
):
    """Abort the transaction open at a start offset on a partition: its producer is read from the
    partition's leader (DescribeProducers) and, with --execute, an abort marker is written for it
    (WriteTxnMarkers, as kafka-transactions abort does); read_committed consumers then read past
    it. A dry run unless --execute. Exit 1 when no transaction starts there."""
    from kcli.ops import transactions as lib
    from kcli.render import transactions as view

    lib.check_partition(topic, partition, start_offset)
    admin = state().admin()
    plan = lib.plan_abort(admin, topic, partition, start_offset)
    if execute:
        lib.abort(admin, plan)
    view.render_abort(out(), plan, start_offset, execute)
