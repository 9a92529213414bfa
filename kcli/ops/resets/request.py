"""reset-offsets' request: the command's flags as each front end reads them (``ResetFlags``: the
native command, kafka-consumer-groups' and kafka-streams-groups' command lines), checked
(kafka-consumer-groups' rules and messages) and read, the --from-file CSV included, into a
``ResetRequest`` by one function, ``request``, before any request to the cluster."""

from __future__ import annotations

import os

from kcli.errors import UsageError
from kcli.inputs import read_text
from kcli.offsets import plan as planner
from kcli.offsets.csvfile import parse_csv
from kcli.ops.groups import check_group_ids
from kcli.ops.resets.rollback import is_own_rollback
from kcli.datatypes import fields, datatype
from kcli.specs import datetime_arg, duration_arg, parse_topic_spec
from kcli.times import TimeParseError, timestamp_before


@datatype(frozen=True)
class ScenarioFlags:
    """The scenario flags as given: a switch's True or a flag's value; None or False where it was
    not given (``is_given``). Each field is the flag's name (``to_offset``: --to-offset)."""
    to_earliest: bool = False
    to_latest: bool = False
    to_current: bool = False
    to_offset: int | None = None
    shift_by: int | None = None
    to_datetime: str | None = None
    by_duration: str | None = None
    from_file: str | None = None
    to_start_time: bool = False

    def value(self, name: str):
        """The value of the flag ``name`` (its spelling in SCENARIOS: ``to-offset``)."""
        return getattr(self, name.replace("-", "_"))

    def given(self, names=None) -> list[str]:
        """Those of ``names`` (flag spellings; all of SCENARIOS unless told), in that order, that
        were given (``is_given``)."""
        return [name for name in (SCENARIOS if names is None else names) if is_given(self.value(name))]


SCENARIOS = tuple(f.name.replace("_", "-") for f in fields(ScenarioFlags))       # the flags' spellings


@datatype(frozen=True)
class ResetFlags:
    """reset-offsets' flags as a front end read them, not yet checked: ``request`` (and
    ``--compare``'s ``kcli.ops.compare.request``) checks and reads them. None or False: not given."""
    groups: list[str]
    all_groups: bool
    topics: list[str]
    all_topics: bool
    scenario: ScenarioFlags
    max_age: str | None = None
    dry_run: bool = False
    execute: bool = False
    allow_skip: bool = False
    rollback_file: str | None = None
    export: bool = False


@datatype(frozen=True)
class ResetRequest:
    """A reset as the flags describe it, checked before any request."""
    groups: list[str]
    all_groups: bool
    topics: list[str]
    all_topics: bool
    scenario: planner.Scenario
    label: str                                   # the scenario as the plan's JSON names it
    file_offsets: dict[str, dict[tuple[str, int], int]] | None = None
    execute: bool = False
    allow_skip: bool = False
    rollback_file: str | None = None
    restore: bool = False                        # --from-file is one of kcli's rollback files
    # kafka-streams-groups' reset: --all-groups is every streams group, and no group is reset on
    # --topic partitions it has not committed
    streams_tool: bool = False
    # kafka-consumer-groups' reset: --all-groups is every consumer group, as the tool lists them
    # (kcli's own: the streams groups too, an application that runs refused as any active group)
    consumer_tool: bool = False

    @property
    def may_skip(self) -> bool:
        """--execute may move committed offsets past unread records: --allow-skip, a scenario
        whose purpose is to skip, or the restore of kcli's own rollback file (the exact undo)."""
        return self.allow_skip or self.restore or self.scenario.kind in planner.SKIPPING_KINDS

    @property
    def with_group(self) -> bool:
        """The CSV's layout (--export, rollback files): the group column unless one --group."""
        return not (self.groups and len(set(self.groups)) == 1)


def is_given(value: object) -> bool:
    """A flag's value says it was given: any value (0 and "" too) or a switch that is on; not
    None (no value) nor False (a switch left off). Never a truthiness test: --to-offset 0 is given."""
    return value is not None and value is not False


def scenario(given: ScenarioFlags, max_age: str | None, now_ms: int) -> tuple[planner.Scenario, str]:
    """The one scenario of the flags ``given``, with kafka-consumer-groups' messages for none or
    two; times and durations read and checked."""
    chosen = given.given()
    if not chosen:
        raise UsageError("reset-offsets requires one scenario: --to-earliest, --to-latest, --to-current, "
                         "--to-offset, --shift-by, --to-datetime, --by-duration, --from-file or --to-start-time")
    if len(chosen) > 1:
        raise UsageError(f'Option "[{chosen[0]}]" can\'t be used with option "[{chosen[1]}]"')
    name, value = chosen[0], given.value(chosen[0])
    if max_age is not None and name != "to-latest":
        raise UsageError("--max-age can only be used with --to-latest")
    if max_age is not None:
        return planner.Scenario(planner.MAX_AGE, duration_arg("--max-age", max_age)), f"to-latest --max-age {max_age}"
    if name == "to-datetime":
        return planner.Scenario(planner.DATETIME, datetime_arg("--to-datetime", value)), f"to-datetime {value}"
    if name == "by-duration":
        ms = duration_arg("--by-duration", value)
        try:
            timestamp_before(now_ms, ms)             # not before the epoch: refused now
        except TimeParseError as exc:
            raise UsageError(f"--by-duration: {exc}") from None
        return planner.Scenario(planner.DURATION, ms), f"by-duration {value}"
    if name in ("to-offset", "shift-by"):
        kind = planner.OFFSET if name == "to-offset" else planner.SHIFT
        return planner.Scenario(kind, value), f"{name} {value}"
    kind = {"to-earliest": planner.EARLIEST, "to-latest": planner.LATEST, "to-current": planner.CURRENT,
            "from-file": planner.FILE, "to-start-time": planner.START_TIME}[name]
    return planner.Scenario(kind), name


def request(flags: ResetFlags, now_ms: int, *, streams_tool: bool = False,
            consumer_tool: bool = False) -> ResetRequest:
    """The flags of reset-offsets, checked (kafka-consumer-groups' rules and messages) and read,
    the --from-file CSV included, before any request: UsageError (exit 2) otherwise.
    ``streams_tool``, ``consumer_tool``: the request is kafka-streams-groups' or
    kafka-consumer-groups' (see ``ResetRequest``)."""
    if flags.dry_run and flags.execute:
        raise UsageError("Option [reset-offsets] only accepts one of [execute] and [dry-run]")
    check_groups(flags.groups, flags.all_groups)
    chosen, label = scenario(flags.scenario, flags.max_age, now_ms)
    from_file = flags.scenario.from_file
    check_topics(flags.topics, flags.all_topics, from_file)
    rollback_file = flags.rollback_file
    if rollback_file is not None and not rollback_file.strip():
        raise UsageError("--rollback-file needs a value")
    if rollback_file and not flags.execute:
        raise UsageError("--rollback-file is only used with --execute")
    if rollback_file and os.path.lexists(rollback_file):
        raise UsageError(f"The rollback file {rollback_file} exists; kcli never overwrites one")
    file_offsets = None
    if from_file is not None:      # read whole before any request (--all-groups: every group's rows)
        file_offsets = parse_csv(read_text(from_file, "--from-file"), list(dict.fromkeys(flags.groups)))
    return ResetRequest(flags.groups, flags.all_groups, flags.topics, flags.all_topics, chosen, label, file_offsets,
                        flags.execute, flags.allow_skip, rollback_file,
                        restore=from_file is not None and is_own_rollback(from_file), streams_tool=streams_tool,
                        consumer_tool=consumer_tool)


def check_groups(groups: list[str], all_groups: bool) -> None:
    """The group scope of reset-offsets and --compare: --group or --all-groups, one of them, and
    each group id valid; UsageError (exit 2) otherwise, in kafka-consumer-groups' words."""
    if groups and all_groups:
        raise UsageError('Option "[group]" can\'t be used with option "[all-groups]"')
    if not groups and not all_groups:
        raise UsageError("Option [reset-offsets] takes one of these options: [group], [all-groups]")
    check_group_ids(groups)


def check_topics(topics: list[str], all_topics: bool, from_file: str | None = None) -> None:
    """The topic scope of reset-offsets and --compare: --topic or --all-topics, one of them unless
    --from-file (its rows name the partitions), and each TOPIC[:P,P...] spec valid; UsageError
    (exit 2) otherwise, in kafka-consumer-groups' words."""
    if topics and all_topics:
        raise UsageError('Option "[topic]" can\'t be used with option "[all-topics]"')
    if not (topics or all_topics or from_file):
        raise UsageError("One of the reset scopes should be defined: --all-topics, --topic.")
    for spec in topics:
        parse_topic_spec(spec)
