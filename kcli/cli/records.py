"""delete-records (mirrors kafka-delete-records, with a dry run first)."""

from __future__ import annotations

from typing import List, Optional

import typer

from kcli.cli.context import out, state


def delete_records(
    topic: Optional[List[str]] = typer.Option(None, "--topic", "-t", metavar="TOPIC:PARTITION=OFFSET",
                                              help="Delete the records below OFFSET (-1: the high watermark); "
                                                   "with --before, TOPIC[:PARTITION,...] (repeatable)."),
    from_file: Optional[str] = typer.Option(None, "--from-file", metavar="FILE",
                                            help="kafka-delete-records' offset JSON file "
                                                 "({\"partitions\": [{\"topic\", \"partition\", \"offset\"}]})."),
    before: Optional[str] = typer.Option(None, "--before", metavar="TIME",
                                         help="Delete the records older than TIME (ISO-8601, no zone = UTC, or "
                                              "epoch ms) in the -t topics."),
    execute: bool = typer.Option(False, "--execute", help="Delete them (else a dry run)."),
    allow_loss: bool = typer.Option(False, "--allow-loss",
                                    help="Let --execute delete records a group has not read yet."),
):
    """Delete the records below an offset (kafka-delete-records); a dry run by default.

    The dry run shows, per partition, the records that would go, their first and last
    timestamps, and the groups whose committed offset is below the new log start offset (they
    have not read those records). --execute refuses such a deletion without --allow-loss."""
    from kcli.ops import records as lib
    from kcli.render import records as view
    from kcli.specs import datetime_arg

    before_ms = None if before is None else datetime_arg("--before", before)
    req = lib.request(list(topic or []), from_file, before_ms)
    admin = state().admin()
    rows = lib.plan(admin, req)
    why = lib.refusal(rows)
    if not execute:
        view.render_plan(out(), rows, executed=False)
        if why:
            out().note(f"Warn: {why.removeprefix('Nothing was deleted: ')}")
        if out().format == "table":
            out().note(view.summary(rows, executed=False))
        return
    lib.execute(admin, rows, allow_loss)
    view.render_plan(out(), rows, executed=True)
    if out().format == "table":
        out().note(view.summary(rows, executed=True))
    lib.check_deleted(rows)
