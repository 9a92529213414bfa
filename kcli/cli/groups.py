"""Consumer groups (mirrors kafka-consumer-groups): list/describe/delete groups, reset-offsets
(dry run by default; --to-start-time, KIP-1282; --to-latest --max-age, KIP-1327) and
delete-offsets."""

from __future__ import annotations

import time
from typing import List, Optional

import typer

from kcli.cli.context import out, state
from kcli.cli.params import Bounded
from kcli.errors import OperationError, UsageError
from kcli.inputs import INT64_MAX, INT64_MIN

# Each command imports the library and view modules it needs: `kcli --help` loads none.
GROUPS = typer.Argument(None, metavar="[GROUP]...", help="Group ids (or --group).")
GROUP_OPTIONS = typer.Option(None, "--group", "-g", metavar="GROUP",
                             help="The same as a GROUP argument, as kafka-consumer-groups spells it (repeatable).")
ALL_GROUPS = typer.Option(False, "--all-groups", help="Every consumer group.")


def list_groups(
    states: Optional[str] = typer.Option(None, "--state",
                                         help="Show each group's state; with a value, only groups in these states "
                                              "(comma-separated, case-insensitive)."),
    types: Optional[str] = typer.Option(None, "--type",
                                        help="Show each group's type; with a value, only groups of these types: "
                                             "classic, consumer, streams (Kafka Streams applications, "
                                             "group.protocol=streams), share (share groups, KIP-932)."),
):
    """List consumer, streams and share groups (kafka-consumer-groups --list lists the consumer groups only)."""
    from kcli import specs
    from kcli.ops import groups as lib
    from kcli.render import groups as view

    wanted_states = specs.parse_states(states) if states else None
    wanted_types = specs.parse_types(types, native=True) if types else None
    groups = lib.list_groups(state().admin(), wanted_states, wanted_types, streams=True)
    view.render_list(out(), groups, show_state=states is not None, show_type=types is not None)


def describe_groups(
    groups: Optional[List[str]] = GROUPS,
    group: Optional[List[str]] = GROUP_OPTIONS,
    all_groups: bool = typer.Option(False, "--all-groups", help="Every consumer and share group."),
    offsets: bool = typer.Option(False, "--offsets",
                                 help="Committed offsets, log end and lag per partition (default)."),
    members: bool = typer.Option(False, "--members", help="Members and their assignments."),
    show_state: bool = typer.Option(False, "--state",
                                    help="Coordinator, strategy, state; with --verbose the epochs and "
                                         "GROUP-CREATION-TIME (KIP-1282). A streams group's internal topics "
                                         "follow (table, json) with their partitions, records and SIZE (the "
                                         "leader replicas' bytes, DescribeLogDirs)."),
    time_lag: bool = typer.Option(False, "--time-lag",
                                  help="Offsets view, -o plain: add NEXT-RECORD-TIME and TIME-LAG (now minus the "
                                       "timestamp of the next record to consume; negative when that record is stamped "
                                       "after now) after kafka-consumer-groups' columns; table, json and csv always "
                                       "show them. Example: kcli describe groups billing -o plain --time-lag"),
):
    """Describe consumer, streams and share groups (kafka-consumer-groups / kafka-streams-groups /
    kafka-share-groups --describe); --verbose adds columns. Groups this principal may not
    describe are named on stderr once the others are shown (exit 3; 1 when none is shown)."""
    from kcli.ops import share as share_lib
    from kcli.ops.failures import raise_refusals

    if offsets + members + show_state > 1:
        raise UsageError("Option [describe] takes at most one of these options: [members], [offsets], [state]")
    admin = state().admin()
    ids = share_lib.every_group_id(admin, [*(groups or []), *(group or [])], all_groups)
    refusals: list = []
    descs, streams, shares = share_lib.describe_every_type(admin, ids, refusals)
    if not refusals or len(refusals) < len(ids):
        _describe(admin, descs, streams, shares, members, show_state, time_lag)
    raise_refusals(len(ids), refusals)


def _describe(admin, descs, streams, shares, members: bool, show_state: bool, time_lag: bool) -> None:
    from kcli.ops import groups as lib
    from kcli.render import groups as view

    st = state()
    if sum(map(bool, (descs, streams, shares))) > 1 and out().format == "json":
        raise OperationError("Consumer, streams and share groups have different JSON documents: "
                             "describe them in separate commands with --output json")
    each = _notices_by_group(descs, streams, per_group=members or not show_state or out().format == "plain")
    if shares:
        _describe_share(shares, members, show_state, st.verbose, time_lag)
        if not descs and not streams:
            return
    if streams:
        _describe_streams(streams, members, show_state, st.verbose, time_lag, each)
        if not descs:
            return
    if members:
        each(descs, lambda ds: view.render_members(out(), ds, st.verbose))
    elif show_state:
        each(descs, lambda ds: view.render_state(out(), ds, st.verbose))
        note = lib.classic_creation_note(descs) if st.verbose and out().format != "json" else None
        if note:
            out().note(note)
    else:
        views = lib.offset_views(admin, descs)
        with_time = _with_time_lag(admin, views, time_lag)
        each(views, lambda vs: view.render_offsets(out(), vs, st.verbose, time_lag=with_time))


def _notices_by_group(descs, streams, per_group: bool):
    """The groups' state notices (stderr; none with JSON) and ``each(groups, render)``, which
    renders the views. Where stdout and stderr are one file (a terminal, ``2>&1``) and the view
    is one per group (``per_group``), each group's notice comes just before its own view, as
    kafka-consumer-groups prints them; otherwise all of them first, in one write, and the views
    rendered together (10k groups' views in a few writes). ``groups`` are descriptions or
    (description, rows) pairs."""
    from kcli.ops import groups as lib
    from kcli.ops import streams as streams_lib

    notices = {} if out().format == "json" else {
        g.group_id: n for g, n in [*((d, lib.state_notice(d)) for d in descs),
                                   *((s, streams_lib.state_notice(s)) for s in streams)] if n}
    one_by_one = per_group and len(notices) > 0 and out().one_file()
    if not one_by_one:
        out().notes("\n" + n for n in notices.values())

    def each(groups: list, render) -> None:
        if not one_by_one:
            render(groups)
            return
        for g in groups:
            notice = notices.get((g[0] if isinstance(g, tuple) else g).group_id)
            if notice:
                out().note("\n" + notice)
            render([g])
    return each


def _with_time_lag(admin, groups, time_lag: bool) -> bool:
    """Whether the offsets view shows the lag in time (--time-lag, or any format but plain);
    then each row's is filled in (kcli.ops.lag), its notes on stderr."""
    with_time = time_lag or out().format != "plain"
    if with_time:
        from kcli.ops import lag

        for note in lag.add_time_lags(admin, groups, int(time.time() * 1000)):
            if out().format != "json":
                out().note(note)
    return with_time


def _describe_share(shares, members: bool, show_state: bool, verbose: bool, time_lag: bool) -> None:
    """The share groups' view (kcli.render.share): state, members, or their share-partitions'
    start offsets, lag and the lag in time of the record at the start offset."""
    from kcli.ops import share as lib
    from kcli.render import share as view

    if members:
        view.render_members(out(), shares, verbose)
    elif show_state:
        view.render_state(out(), shares, verbose)
    else:
        views = lib.offset_views(state().admin(), shares)
        with_time = _with_time_lag(state().admin(), [(d, [r for _, r in pairs]) for d, pairs in views], time_lag)
        view.render_offsets(out(), views, verbose, time_lag=with_time)


def _describe_streams(streams, members: bool, show_state: bool, verbose: bool, time_lag: bool, each) -> None:
    """The streams groups' view (kcli.render.streams): state, members, or offsets, lag and lag
    in time (a stopped application's too, from its committed offsets); ``each`` renders them
    (``_notices_by_group``)."""
    from kcli.ops import streams as lib
    from kcli.render import streams as view

    if members:
        each(streams, lambda ss: view.render_members(out(), ss, verbose))
    elif show_state:
        sizes, partial = (lib.internal_topic_sizes(state().admin(), streams) if out().format in ("table", "json")
                          else (None, None))
        each(streams, lambda ss: view.render_state(out(), ss, verbose, sizes))
        if partial:                  # the view is shown, its unknown records named: exit 1
            from kcli.errors import OperationError

            raise OperationError(partial)
    else:
        groups = [(d, lib.offset_rows(state().admin(), d)) for d in streams]
        with_time = _with_time_lag(state().admin(), groups, time_lag)
        each(groups, lambda gs: view.render_offsets(out(), gs, verbose, time_lag=with_time))


def reset_offsets(
    group: Optional[List[str]] = typer.Option(None, "--group", "-g", help="Group id (repeatable)."),
    all_groups: bool = typer.Option(False, "--all-groups",
                                    help="Every consumer and streams group (one with members, a running "
                                         "application's too, is named and left alone)."),
    topic: Optional[List[str]] = typer.Option(None, "--topic", "-t", help="TOPIC[:P,P...] (repeatable)."),
    all_topics: bool = typer.Option(False, "--all-topics",
                                    help="Every partition the group has committed (a streams group: of its input "
                                         "topics, not its repartition topics)."),
    all_input_topics: bool = typer.Option(False, "--all-input-topics",
                                          help="kafka-streams-groups' name for --all-topics: a streams group's "
                                               "committed partitions of its topology's input topics."),
    to_earliest: bool = typer.Option(False, "--to-earliest", help="The log start offset of each partition."),
    to_latest: bool = typer.Option(False, "--to-latest", help="The log end offset of each partition."),
    to_current: bool = typer.Option(False, "--to-current", help="The committed offset (or, without one, the log end)."),
    to_offset: Optional[int] = typer.Option(None, "--to-offset", click_type=Bounded(INT64_MIN, INT64_MAX),
                                            help="This offset, within each partition's log start and end."),
    shift_by: Optional[int] = typer.Option(None, "--shift-by", click_type=Bounded(INT64_MIN, INT64_MAX),
                                           help="The committed offset plus N (negative: back), within the log."),
    to_datetime: Optional[str] = typer.Option(None, "--to-datetime", help="ISO-8601 (no zone = UTC) or epoch ms."),
    by_duration: Optional[str] = typer.Option(None, "--by-duration",
                                              help="PnDTnHnMnS or 15m, 2h...; a bare number is milliseconds."),
    from_file: Optional[str] = typer.Option(None, "--from-file", help="A reset CSV (as --export writes)."),
    to_start_time: bool = typer.Option(False, "--to-start-time", help="The group's creation time (KIP-1282)."),
    max_age: Optional[str] = typer.Option(None, "--max-age",
                                          help="With --to-latest: earliest for partitions no older than this "
                                               "(KIP-1327), latest only for those proven older (the broker's age, "
                                               "or kcli's own sightings and record bounds: docs/kips.md); a bare "
                                               "number is milliseconds."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the plan only (the default)."),
    execute: bool = typer.Option(False, "--execute", help="Commit the plan."),
    export: bool = typer.Option(False, "--export", help="Print the plan as kafka-consumer-groups' CSV."),
    rollback_file: Optional[str] = typer.Option(None, "--rollback-file",
                                                help="Where --execute saves the current offsets first (a new file; "
                                                     "default under $XDG_STATE_HOME/kcli/rollback/)."),
    allow_skip: bool = typer.Option(False, "--allow-skip",
                                    help="Let --execute move committed offsets forward past records the group has not "
                                         "read (--to-latest, --max-age and restoring a rollback file kcli wrote, "
                                         "wherever it lies, need not)."),
    compare: bool = typer.Option(False, "--compare",
                                 help="Every policy side by side, a dry run: earliest, latest, to-start-time, latest "
                                      "--max-age D, by-duration D (D from --max-age/--by-duration, default 1h) and "
                                      "--to-datetime when given; per partition the target and the records skipped (+) "
                                      "or replayed (-), signed as a plan's DELTA. Example: kcli reset-offsets "
                                      "-g billing -t orders --compare --max-age 30m"),
):
    """Reset committed offsets of inactive groups; a dry run unless --execute.

    Undo: every --execute first writes a rollback file, the group's committed offsets before the
    reset, named on stderr, under $XDG_STATE_HOME/kcli/rollback/ (default
    ~/.local/state/kcli/rollback/), never overwritten. Restore it with kcli reset-offsets
    --from-file ROLLBACK-FILE --execute: kcli's own rollback files restore without --allow-skip."""
    from kcli.offsets import plan as planner
    from kcli.ops import resets
    from kcli.render import groups as view
    from kcli.render.notices import notice, summary

    flags = resets.ResetFlags(
        groups=group or [], all_groups=all_groups, topics=topic or [], all_topics=all_topics or all_input_topics,
        scenario=resets.ScenarioFlags(to_earliest=to_earliest, to_latest=to_latest, to_current=to_current,
                                      to_offset=to_offset, shift_by=shift_by, to_datetime=to_datetime,
                                      by_duration=by_duration, from_file=from_file, to_start_time=to_start_time),
        max_age=max_age, dry_run=dry_run, execute=execute, allow_skip=allow_skip, rollback_file=rollback_file,
        export=export)
    now_ms = int(time.time() * 1000)         # one clock for the flags' times and the plan's
    if compare:
        from kcli.ops import compare as comparing
        from kcli.render.compare import render_comparison

        from kcli.ops.failures import raise_refusals

        asked = comparing.request(flags, now_ms)
        compared = comparing.compare(state().admin(), asked, now_ms, out().progress)
        render_comparison(out(), compared, state().verbose)
        raise_refusals(len(compared.order) + len(compared.refused),     # named after the others (exit 3)
                       [OperationError(words) for words in compared.refused])
        return
    req = resets.request(flags, now_ms)
    result = resets.reset(state().admin(), req, now_ms, out().progress)
    warnings = [w for plan in result.plans for w in plan.warnings]
    notices = [notice(w) for w in [*warnings, *result.skips, *result.replays]]
    for line in summary(notices, state().verbose):
        out().note(f"Warn: {line}")
    if result.executed:
        out().note(f"Rollback file (the committed offsets before this reset): {result.rollback_file}")
        for note in result.notes:
            out().note(note)
    if export:
        view.render_export(out(), result.plans, req.with_group)
    else:
        view.render_plan(out(), result.plans, time_scenario=req.scenario.is_time,
                         with_rule=req.scenario.kind == planner.MAX_AGE, scenario=req.label,
                         executed=result.executed, rollback_file=result.rollback_file)
    if not execute and out().format == "table":
        out().note("Dry run: nothing was committed (add --execute to apply).")
    if result.executed and out().format != "json":
        out().note(view.committed_line(*resets.committed_counts(result)))
    resets.finish(result)


def delete_groups(groups: Optional[List[str]] = GROUPS, group: Optional[List[str]] = GROUP_OPTIONS,
                  all_groups: bool = ALL_GROUPS):
    """Delete consumer, streams or share groups (kafka-consumer-groups / kafka-streams-groups /
    kafka-share-groups --delete)."""
    from kcli.ops import groups as lib
    from kcli.render import groups as view

    admin = state().admin()
    results = lib.delete(admin, lib.group_ids(admin, [*(groups or []), *(group or [])], all_groups))
    view.render_delete_groups(out(), results)
    lib.check_deleted(results)


def delete_offsets(
    group: List[str] = typer.Option(..., "--group", "-g",
                                    help="The group id: one (a second --group is refused, exit 2)."),
    topic: List[str] = typer.Option(..., "--topic", "-t", help="TOPIC[:P,P...] (repeatable)."),
):
    """Delete committed offsets of a consumer or streams group, or a share group's offsets of
    whole topics (kafka-consumer-groups / kafka-streams-groups / kafka-share-groups --delete-offsets)."""
    from kcli.ops import groups as lib
    from kcli.render import groups as view
    from kcli.specs import parse_topic_spec

    if len(group) > 1:      # typer would keep the last one and act on it
        raise UsageError(f"delete-offsets takes one --group; given {len(group)}: {', '.join(group)}")
    group_id = group[0]
    lib.check_group_ids([group_id])                     # before any request: the share lookup too
    for spec in topic:
        parse_topic_spec(spec)
    from kcli.ops import share

    admin = state().admin()
    if share.is_share_group(admin, group_id):          # a share group's state goes per topic
        group_error, rows = share.delete_offsets_rows(admin, group_id, topic)
    else:
        group_error, rows = lib.delete_offsets(admin, group_id, topic)
    view.render_delete_offsets(out(), group_id, group_error, rows)
    lib.check_offsets_deleted(group_id, group_error, rows)
