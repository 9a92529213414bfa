"""Checks for runbooks: exit 0 when nothing is found, 4 when something is (documented)."""

from __future__ import annotations

import time
from typing import List, Optional

import typer

from kcli.cli.context import out, state


def expansions(
    within: Optional[str] = typer.Option(None, "--within", help="How recent a partition must be: 24h (default), 30m, PT6H; a bare number is milliseconds."),
    group: Optional[List[str]] = typer.Option(None, "--group", "-g", help="Only these groups (repeatable; default every group)."),
    topic: Optional[List[str]] = typer.Option(None, "--topic", "-t", help="Only these topics (repeatable; default every topic but the internal ones)."),
):
    """Find partitions added recently to a topic (KIP-1327 CreationTimeMs after the topic's first
    partitions'; a new topic is named in a note, not checked) where a consumer group loses
    records, or is about to: per group with committed offsets on the topic, whether it has
    committed there, whether the partition is younger than the group (KIP-1282), EXPOSED (no
    commit: the records a latest start would skip now) and LOST? (suspected: kcli saw the records
    while the group had no commit, and its commit is now past them). Exit 0 when nothing is
    exposed or lost, 4 when something is, 1 when the broker reports no creation times or a
    group named with --group does not exist."""
    from kcli.errors import CheckFound
    from kcli.ops import expansions as radar
    from kcli.render.expansions import render_report

    window = radar.within_ms(within)
    radar.check_names(group or [], topic or [])
    report = radar.check_expansions(state().admin(), group or [], topic or [], window, int(time.time() * 1000))
    render_report(out(), report)
    found = radar.problems(report)
    if found:
        raise CheckFound(found)
