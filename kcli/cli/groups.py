"""Consumer groups (mirrors kafka-consumer-groups): list/describe/delete groups, reset-offsets
(dry run by default; --to-start-time, KIP-1282; --to-latest --max-age, KIP-1327) and
delete-offsets."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, List, Optional

import typer

from kcli.cli.apps import delete_app, describe_app, list_app, root_app as app
from kcli.cli.context import out, state
from kcli.errors import EXIT_FAILED, EXIT_PARTIAL, KcliError, UsageError
from kcli.inputs import INT64_MAX, INT64_MIN
from kcli.times import TimeParseError, parse_datetime_ms, parse_duration_ms, timestamp_before

if TYPE_CHECKING:
    from kcli.offsets import plan as planner

# Each command imports the library and view modules it needs: `kcli --help` loads none.
GROUPS = typer.Argument(None, metavar="[GROUP]...", help="Group ids.")
ALL_GROUPS = typer.Option(False, "--all-groups", help="Every consumer group.")


@list_app.command("groups")
def list_groups(
    states: Optional[str] = typer.Option(None, "--state", help="Show each group's state; with a value, only groups in these states (comma-separated, case-insensitive)."),
    types: Optional[str] = typer.Option(None, "--type", help="Show each group's type; with a value, only groups of these types: classic, consumer."),
):
    """List consumer groups (kafka-consumer-groups --list)."""
    from kcli.admin import groups as lib
    from kcli.render import groups as view

    wanted_states = lib.parse_states(states) if states else None
    wanted_types = lib.parse_types(types) if types else None
    groups = lib.list_groups(state().admin(), wanted_states, wanted_types)
    view.render_list(out(), groups, show_state=states is not None, show_type=types is not None)


@describe_app.command("groups")
def describe_groups(
    groups: Optional[List[str]] = GROUPS,
    all_groups: bool = ALL_GROUPS,
    offsets: bool = typer.Option(False, "--offsets", help="Committed offsets, log end and lag per partition (default)."),
    members: bool = typer.Option(False, "--members", help="Members and their assignments."),
    show_state: bool = typer.Option(False, "--state", help="Coordinator, strategy, state; with --verbose the epochs and GROUP-CREATION-TIME (KIP-1282)."),
):
    """Describe consumer groups (kafka-consumer-groups --describe); --verbose adds columns."""
    from kcli.admin import groups as lib
    from kcli.render import groups as view

    if offsets + members + show_state > 1:
        raise UsageError("Option [describe] takes at most one of these options: [members], [offsets], [state]")
    st = state()
    admin = st.admin()
    descs = lib.describe(admin, lib.group_ids(admin, groups or [], all_groups))
    if out().format != "json":
        for d in descs:
            notice = lib.state_notice(d)
            if notice:
                out().note("\n" + notice)
    if members:
        view.render_members(out(), descs, st.verbose)
    elif show_state:
        view.render_state(out(), descs, st.verbose)
    else:
        view.render_offsets(out(), [(d, lib.offset_rows(admin, d)) for d in descs], st.verbose)


def _scenario(to_earliest, to_latest, to_current, to_offset, shift_by, to_datetime, by_duration,
              from_file, to_start_time, max_age) -> tuple[planner.Scenario, str]:
    from kcli.offsets import plan as planner

    given = [name for name, on in (
        ("to-earliest", to_earliest), ("to-latest", to_latest), ("to-current", to_current),
        ("to-offset", to_offset is not None), ("shift-by", shift_by is not None),
        ("to-datetime", to_datetime is not None), ("by-duration", by_duration is not None),
        ("from-file", from_file is not None), ("to-start-time", to_start_time)) if on]
    if not given:
        raise UsageError("reset-offsets requires one scenario: --to-earliest, --to-latest, --to-current, "
                         "--to-offset, --shift-by, --to-datetime, --by-duration, --from-file or --to-start-time")
    if len(given) > 1:
        raise UsageError(f'Option "[{given[0]}]" can\'t be used with option "[{given[1]}]"')
    if max_age is not None and not to_latest:
        raise UsageError("--max-age can only be used with --to-latest")
    try:
        if max_age is not None:
            ms = parse_duration_ms(max_age)
            if ms < 0:
                raise UsageError("--max-age must not be negative")
            return planner.Scenario(planner.MAX_AGE, ms), f"to-latest --max-age {max_age}"
        if to_datetime is not None:
            return planner.Scenario(planner.DATETIME, parse_datetime_ms(to_datetime)), f"to-datetime {to_datetime}"
        if by_duration is not None:
            ms = parse_duration_ms(by_duration)
            timestamp_before(int(time.time() * 1000), ms)     # not before the epoch: refused now
            return planner.Scenario(planner.DURATION, ms), f"by-duration {by_duration}"
    except TimeParseError as exc:
        raise UsageError(str(exc)) from None
    if to_offset is not None:
        return planner.Scenario(planner.OFFSET, to_offset), f"to-offset {to_offset}"
    if shift_by is not None:
        return planner.Scenario(planner.SHIFT, shift_by), f"shift-by {shift_by}"
    kind = {"to-earliest": planner.EARLIEST, "to-latest": planner.LATEST, "to-current": planner.CURRENT,
            "from-file": planner.FILE, "to-start-time": planner.START_TIME}[given[0]]
    return planner.Scenario(kind), given[0]


@app.command("reset-offsets")
def reset_offsets(
    group: Optional[List[str]] = typer.Option(None, "--group", "-g", help="Group id (repeatable)."),
    all_groups: bool = ALL_GROUPS,
    topic: Optional[List[str]] = typer.Option(None, "--topic", "-t", help="TOPIC[:P,P...] (repeatable)."),
    all_topics: bool = typer.Option(False, "--all-topics", help="Every partition the group has committed."),
    to_earliest: bool = typer.Option(False, "--to-earliest"),
    to_latest: bool = typer.Option(False, "--to-latest"),
    to_current: bool = typer.Option(False, "--to-current"),
    to_offset: Optional[int] = typer.Option(None, "--to-offset", min=INT64_MIN, max=INT64_MAX),
    shift_by: Optional[int] = typer.Option(None, "--shift-by", min=INT64_MIN, max=INT64_MAX),
    to_datetime: Optional[str] = typer.Option(None, "--to-datetime", help="ISO-8601 (no zone = UTC) or epoch ms."),
    by_duration: Optional[str] = typer.Option(None, "--by-duration", help="PnDTnHnMnS or 15m, 2h...; a bare number is milliseconds."),
    from_file: Optional[str] = typer.Option(None, "--from-file", help="A reset CSV (as --export writes)."),
    to_start_time: bool = typer.Option(False, "--to-start-time", help="The group's creation time (KIP-1282)."),
    max_age: Optional[str] = typer.Option(None, "--max-age", help="With --to-latest: earliest for partitions no older than this (KIP-1327); a bare number is milliseconds."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the plan only (the default)."),
    execute: bool = typer.Option(False, "--execute", help="Commit the plan."),
    export: bool = typer.Option(False, "--export", help="Print the plan as kafka-consumer-groups' CSV."),
    rollback_file: Optional[str] = typer.Option(None, "--rollback-file", help="Where --execute saves the current offsets first (a new file; default under $XDG_STATE_HOME/kcli/rollback/)."),
    allow_skip: bool = typer.Option(False, "--allow-skip", help="Let --execute move committed offsets forward past records the group has not read (--to-latest and --max-age need not)."),
):
    """Reset committed offsets of inactive groups; a dry run unless --execute."""
    from kcli.admin import groups as lib
    from kcli.admin.offsets import parse_topic_spec
    from kcli.inputs import read_text
    from kcli.offsets import plan as planner
    from kcli.offsets.csvfile import parse_csv
    from kcli.render import groups as view

    if dry_run and execute:
        raise UsageError("Option [reset-offsets] only accepts one of [execute] and [dry-run]")
    if group and all_groups:
        raise UsageError('Option "[group]" can\'t be used with option "[all-groups]"')
    if not group and not all_groups:
        raise UsageError("Option [reset-offsets] takes one of these options: [group], [all-groups]")
    scenario, label = _scenario(to_earliest, to_latest, to_current, to_offset, shift_by, to_datetime,
                                by_duration, from_file, to_start_time, max_age)
    if topic and all_topics:
        raise UsageError('Option "[topic]" can\'t be used with option "[all-topics]"')
    if not (topic or all_topics or from_file):
        raise UsageError("One of the reset scopes should be defined: --all-topics, --topic.")
    if rollback_file is not None and not rollback_file.strip():
        raise UsageError("--rollback-file needs a value")
    if rollback_file and not execute:
        raise UsageError("--rollback-file is only used with --execute")
    if rollback_file and os.path.lexists(rollback_file):
        raise UsageError(f"The rollback file {rollback_file} exists; kcli never overwrites one")
    for spec in topic or []:
        parse_topic_spec(spec)
    file_offsets = None
    if from_file is not None:      # read whole before any request (--all-groups: every group's rows)
        file_offsets = parse_csv(read_text(from_file, "--from-file"), list(dict.fromkeys(group or [])))

    admin = state().admin()
    ids = lib.group_ids(admin, group or [], all_groups)
    with out().progress("Planning the reset") as progress:
        plans = lib.plan_reset(admin, ids, topic or [], all_topics, scenario,
                               int(time.time() * 1000), file_offsets, progress)
    for plan in plans:
        for w in plan.warnings:
            out().note(f"Warn: {w}")
    skips = planner.skip_notices(plans)
    for notice in skips:
        out().note(f"Warn: {notice}")
    with_group = not (group and len(ids) == 1)
    result = lib.ResetResult(plans)
    refuse = execute and skips and scenario.kind not in planner.SKIPPING_KINDS and not allow_skip
    if execute and not refuse:
        path = rollback_file or lib.rollback_path(admin.cluster_id(), ids, int(time.time() * 1000))
        with out().progress("Committing offsets") as progress:
            result = lib.execute(admin, plans, path, with_group, progress)
        out().note(f"Rollback file (the committed offsets before this reset): {path}")
        for note in result.notes:
            out().note(note)
    if export:
        view.render_export(out(), plans, with_group)
    else:
        view.render_plan(out(), plans, time_scenario=scenario.is_time,
                         with_rule=scenario.kind == planner.MAX_AGE, scenario=label,
                         executed=result.executed, rollback_file=result.rollback_file)
    if not execute and out().format == "table":
        out().note("Dry run: nothing was committed (add --execute to apply).")
    if refuse:
        raise KcliError(f"Nothing was committed: the reset skips unread records on {len(skips)} "
                        f"partition(s) (above); add --allow-skip to commit it", EXIT_FAILED)
    lib.report(result)


@delete_app.command("groups")
def delete_groups(groups: Optional[List[str]] = GROUPS, all_groups: bool = ALL_GROUPS):
    """Delete consumer groups (kafka-consumer-groups --delete)."""
    from kcli.admin import groups as lib
    from kcli.render import groups as view

    admin = state().admin()
    ids = lib.group_ids(admin, groups or [], all_groups)
    results = admin.delete_groups(ids)
    view.render_delete_groups(out(), results)
    failed = sum(e is not None for e in results.values())
    if failed:
        code = EXIT_FAILED if failed == len(results) else EXIT_PARTIAL
        raise KcliError(f"{failed} of {len(results)} groups could not be deleted", code)


@app.command("delete-offsets")
def delete_offsets(
    group: str = typer.Option(..., "--group", "-g", help="The group id."),
    topic: List[str] = typer.Option(..., "--topic", "-t", help="TOPIC[:P,P...] (repeatable)."),
):
    """Delete committed offsets of a group (kafka-consumer-groups --delete-offsets)."""
    from kcli.admin import groups as lib
    from kcli.admin.offsets import parse_topic_spec
    from kcli.render import groups as view

    for spec in topic:
        parse_topic_spec(spec)
    group_error, rows = lib.delete_offsets(state().admin(), group, topic)
    view.render_delete_offsets(out(), group, group_error, rows)
    failed = sum(e is not None for _, _, e in rows)
    if group_error is not None or failed:
        code = EXIT_PARTIAL if 0 < failed < len(rows) and group_error is None else EXIT_FAILED
        raise KcliError(f"Offsets of group '{group}': {failed} of {len(rows)} partitions not deleted", code)
