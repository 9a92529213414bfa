"""reset-offsets' request: the command's flags, checked (kafka-consumer-groups' rules and
messages) and read, the --from-file CSV included, into a ``ResetRequest`` before any request."""

from __future__ import annotations

import os
from dataclasses import dataclass

from kcli.errors import UsageError
from kcli.inputs import read_text
from kcli.offsets import plan as planner
from kcli.offsets.csvfile import parse_csv
from kcli.ops.groups import check_group_ids
from kcli.ops.resets.rollback import is_own_rollback
from kcli.specs import datetime_arg, duration_arg, parse_topic_spec
from kcli.times import TimeParseError, timestamp_before


SCENARIOS = ("to-earliest", "to-latest", "to-current", "to-offset", "shift-by", "to-datetime",
             "by-duration", "from-file", "to-start-time")


@dataclass
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


def given_flags(flags: dict[str, object], names) -> list[str]:
    """Those of ``names`` (in that order) that ``flags`` says were given (``is_given``)."""
    return [name for name in names if is_given(flags.get(name))]


def scenario(given: dict[str, object], max_age: str | None, now_ms: int) -> tuple[planner.Scenario, str]:
    """The one scenario of the flags ``given`` (name in SCENARIOS -> its value, or True), with
    kafka-consumer-groups' messages for none or two; times and durations read and checked."""
    chosen = given_flags(given, SCENARIOS)
    if not chosen:
        raise UsageError("reset-offsets requires one scenario: --to-earliest, --to-latest, --to-current, "
                         "--to-offset, --shift-by, --to-datetime, --by-duration, --from-file or --to-start-time")
    if len(chosen) > 1:
        raise UsageError(f'Option "[{chosen[0]}]" can\'t be used with option "[{chosen[1]}]"')
    name, value = chosen[0], given[chosen[0]]
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


def request(*, groups: list[str], all_groups: bool, topics: list[str], all_topics: bool,
            scenario_flags: dict[str, object], max_age: str | None, dry_run: bool, execute: bool,
            allow_skip: bool, rollback_file: str | None, now_ms: int) -> ResetRequest:
    """The flags of reset-offsets, checked (kafka-consumer-groups' rules and messages) and read,
    the --from-file CSV included, before any request: UsageError (exit 2) otherwise."""
    if dry_run and execute:
        raise UsageError("Option [reset-offsets] only accepts one of [execute] and [dry-run]")
    if groups and all_groups:
        raise UsageError('Option "[group]" can\'t be used with option "[all-groups]"')
    if not groups and not all_groups:
        raise UsageError("Option [reset-offsets] takes one of these options: [group], [all-groups]")
    check_group_ids(groups)
    chosen, label = scenario(scenario_flags, max_age, now_ms)
    from_file = scenario_flags.get("from-file")
    if topics and all_topics:
        raise UsageError('Option "[topic]" can\'t be used with option "[all-topics]"')
    if not (topics or all_topics or from_file):
        raise UsageError("One of the reset scopes should be defined: --all-topics, --topic.")
    if rollback_file is not None and not rollback_file.strip():
        raise UsageError("--rollback-file needs a value")
    if rollback_file and not execute:
        raise UsageError("--rollback-file is only used with --execute")
    if rollback_file and os.path.lexists(rollback_file):
        raise UsageError(f"The rollback file {rollback_file} exists; kcli never overwrites one")
    for spec in topics:
        parse_topic_spec(spec)
    file_offsets = None
    if from_file is not None:      # read whole before any request (--all-groups: every group's rows)
        file_offsets = parse_csv(read_text(from_file, "--from-file"), list(dict.fromkeys(groups)))
    return ResetRequest(groups, all_groups, topics, all_topics, chosen, label, file_offsets,
                        execute, allow_skip, rollback_file,
                        restore=from_file is not None and is_own_rollback(from_file))
