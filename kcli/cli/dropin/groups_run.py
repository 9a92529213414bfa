"""kafka-consumer-groups' execution (its grammar: ``kcli.cli.dropin.groups``): each action on kcli's
group and reset operations and plain views, with the tool's way of reporting (its error lines on
stdout; a reset's warnings and refusals in its words: ``kcli.cli.dropin.javawords``). The
reset's rules are kcli's: see ``Reset``."""

from __future__ import annotations

import time

from kcli.cli.dropin import jopt
from kcli.cli.dropin.common import Usage
from kcli.cli.dropin.run import Console, admin_for, plain_output
from kcli.errors import EXIT_USAGE, KcliError, OperationError, PartialFailure, UsageError
from kcli.datatypes import replace

GROUP_ERROR = "\nError: Executing consumer group command failed due to "


def execute(req, console: Console) -> int:
    from kcli.specs import re2_error

    p = req.parsed
    if req.action == "validate-regex":
        regex = p.value("validate-regex")
        error = re2_error(regex)
        console.write("stdout", f"The regular expression `{regex}` is valid.\n" if error is None else
                      f"The regular expression `{regex}` is invalid: {error}.\n")
        return 0
    return group_tool(req, console, _GROUP_ACTIONS, GROUP_ERROR,
                       lambda exc: Usage(f"{GROUP_ERROR}{exc}", "stdout"))


def group_tool(req, console: Console, actions: dict, error_prefix: str, conversion) -> int:
    """kafka-consumer-groups' and kafka-streams-groups' run: the values the tool converts while
    it runs (``conversion``: the Usage a jopt conversion error is, as each tool reports it), the
    action's own checks (``prepare``), then the action on the admin adapter; an operation's
    error is the tool's line on stdout (``error_prefix``, or KIP-1282's own words)."""
    p = req.parsed
    try:
        try:
            timeout_ms = p.value("timeout")
            command_config = p.value("command-config")
            bootstrap = p.value("bootstrap-server")
        except jopt.JoptError as exc:
            raise conversion(exc) from None
        from kcli.admin.settings import parse_timeout_ms

        timeout_ms = parse_timeout_ms(str(timeout_ms))
        if console.before.timeout_ms is not None:      # kcli's --timeout before the name: the shorter
            timeout_ms = min(timeout_ms, console.before.timeout_ms) if p.has("timeout") else console.before.timeout_ms
        action = actions[req.action]
        prepared = action.prepare(p) if hasattr(action, "prepare") else None
    except Usage as exc:
        console.write(exc.stream, f"{exc.message}\n")
        return EXIT_USAGE
    except UsageError as exc:            # the Java tool's IllegalArgumentException: usage, stderr
        console.write("stderr", f"{exc.message}\n")
        return EXIT_USAGE
    try:
        with admin_for(bootstrap, command_config, timeout_ms, console) as admin:
            return action.execute(admin, p, prepared, plain_output(console), console)
    except UsageError as exc:
        console.write("stderr", f"{exc.message}\n")
        return EXIT_USAGE
    except KcliError as exc:
        from kcli.ops.resets import StartTimeUnavailable

        if isinstance(exc, StartTimeUnavailable):
            from kcli.cli.dropin import javawords

            console.write("stdout", javawords.start_time_error(exc, error_prefix))
        else:
            console.write("stdout", f"{error_prefix}{_java_message(exc)}\n")
        return console.failed(exc)


def _java_message(exc: KcliError) -> str:
    """The Java tool's words where kcli's differ: a topic that does not exist, named whole."""
    from kcli.ops.resets import InputsOfMissingGroup, MissingPartitions
    from kcli.render.javatext import ERRORS

    if isinstance(exc, MissingPartitions) and exc.whole_topics:
        return ERRORS[3][2]
    if isinstance(exc, InputsOfMissingGroup):
        return ("java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.GroupIdNotFoundException: "
                f"Group {exc.group} not found.")
    return exc.message


def exit_of(check, *args) -> int:
    """An operation's exit code once its results are shown (nothing more printed: the Java
    tool's output already says what failed)."""
    return outcome_of(check, *args)[0]


def outcome_of(check, *args) -> tuple[int, str | None]:
    """An operation's exit code and kcli's message for it (None when it all succeeded)."""
    try:
        check(*args)
    except KcliError as exc:
        return exc.exit_code, exc.message
    return 0, None


class _List:
    @staticmethod
    def prepare(p):
        from kcli import specs

        states, types = p.raw("state"), p.raw("type")
        return (specs.parse_states(states) if states else None, specs.parse_types(types) if types else None)

    @staticmethod
    def execute(admin, p, prepared, out, console) -> int:
        from kcli.ops import groups as lib
        from kcli.render import groups as view

        states, types = prepared
        view.render_list(out, lib.list_groups(admin, states, types), show_state=p.has("state"),
                         show_type=p.has("type"))
        return 0


def _group_ids(admin, p) -> list[str]:
    from kcli.ops import groups as lib

    return lib.group_ids(admin, p.values("group"), p.has("all-groups"))


class _Describe:
    @staticmethod
    def execute(admin, p, prepared, out, console) -> int:
        from kcli.ops import groups as lib
        from kcli.render import groups as view

        descs = lib.descriptions(admin, _group_ids(admin, p))
        missing = [d for d in descs if not d.exists]
        if missing:                 # the broker's words: a streams group "is not a consumer group."
            raise OperationError(f"org.apache.kafka.common.errors.GroupIdNotFoundException: "
                                 f"{lib.not_found_text(missing[0])}")
        verbose = p.has("verbose")
        offsets = not p.has("members") and not p.has("state")
        rows = dict((d.group_id, rows) for d, rows in lib.offset_views(admin, descs)) if offsets else {}

        def render(groups: list) -> None:
            if p.has("members"):
                view.render_members(out, groups, verbose)
            elif p.has("state"):
                view.render_state(out, groups, verbose)
            else:
                view.render_offsets(out, [(d, rows[d.group_id]) for d in groups], verbose)

        notices = [lib.state_notice(d) for d in descs]
        if console.one_file():      # each group's notice just before its view, in the tool's order
            for d, notice in zip(descs, notices):
                if notice:
                    console.write("stderr", "\n" + notice + "\n")
                render([d])
        else:                       # no order to keep between them: each written in big pieces
            console.write("stderr", "".join("\n" + notice + "\n" for notice in notices if notice))
            render(descs)
        return 0


class _Delete:
    @staticmethod
    def execute(admin, p, prepared, out, console) -> int:
        from kcli.ops import groups as lib
        from kcli.render import groups as view

        results = lib.delete(admin, _group_ids(admin, p))
        view.render_delete_groups(out, results)
        return exit_of(lib.check_deleted, results)


class DeleteOffsets:
    @staticmethod
    def prepare(p):
        from kcli.specs import parse_topic_spec

        try:
            group = p.value("group")
        except jopt.JoptError as exc:
            raise Usage(f"{GROUP_ERROR}{exc}", "stdout") from None
        topics = p.values("topic")
        for spec in topics:
            parse_topic_spec(spec)
        return group, topics

    @staticmethod
    def execute(admin, p, prepared, out, console) -> int:
        from kcli.ops import groups as lib
        from kcli.render import groups as view

        group, topics = prepared
        group_error, rows = lib.delete_offsets(admin, group, topics)
        view.render_delete_offsets(out, group, group_error, rows)
        return exit_of(lib.check_offsets_deleted, group, group_error, rows)


class Reset:
    """kcli's reset with the Java tool's command line. kcli's safety rules stay: a rollback file
    before any commit (named on stderr), skipped unread records named on stderr. An active group
    is not reset (the tool's error line, an empty plan) while the others are (exit 3). The Java tool
    has no --allow-skip: --execute commits a plan that
    skips unread records, as the Java tool does, after kcli's warning."""

    error = GROUP_ERROR

    @classmethod
    def conversion(cls, exc) -> Usage:
        """A value jopt cannot convert, as the tool reports it (its runtime error line)."""
        return Usage(f"{cls.error}{exc}", "stdout")

    @classmethod
    def scope(cls, p) -> tuple[list[str], bool]:
        return p.values("topic"), p.has("all-topics")

    @classmethod
    def prepare(cls, p):
        from kcli.ops import resets
        from kcli.times import TimeParseError, parse_java_datetime_ms, parse_java_duration_ms

        def first(name):                                     # the tool reads the first (valuesOf)
            return (p.values(name) or [None])[0]

        try:
            flags = _reset_flags(p, first)
        except jopt.JoptError as exc:
            raise cls.conversion(exc) from None
        try:          # the Java tool's grammars for times: Utils.getDateTime, Duration.parse
            if flags.to_datetime is not None:
                flags = replace(flags, to_datetime=str(parse_java_datetime_ms(flags.to_datetime)))
            if flags.by_duration is not None:
                parse_java_duration_ms(flags.by_duration)
        except TimeParseError as exc:
            raise Usage(f"{cls.error}{exc}", "stdout") from None
        topics, all_topics = cls.scope(p)
        now_ms = int(time.time() * 1000)     # one clock for the flags' times and the plan's
        return resets.request(resets.ResetFlags(groups=p.values("group"), all_groups=p.has("all-groups"),
                                                topics=topics, all_topics=all_topics, scenario=flags,
                                                dry_run=p.has("dry-run"), execute=p.has("execute"), allow_skip=True),
                              now_ms, streams_tool=cls.streams_tool,
                              consumer_tool=not cls.streams_tool), now_ms

    streams_tool = False

    @staticmethod
    def plan_text(plans) -> str:
        from kcli.render import groups as view

        return view.plain_plan(plans)

    @classmethod
    def execute(cls, admin, p, prepared, out, console) -> int:
        from kcli.cli.dropin import javawords
        from kcli.model import NOT_AUTHORIZED
        from kcli.offsets.plan import NoCommittedOffset
        from kcli.ops import resets
        from kcli.render import groups as view

        req, now_ms = prepared
        try:
            result = resets.reset(admin, req, now_ms)
        except NoCommittedOffset as exc:                 # a usage error for the Java tool
            raise UsageError(exc.java_message) from None
        plans = _java_order(result.plans)        # the tool prints while it walks its map of groups
        for plan in plans:
            if plan.refused and plan.refused.kind == NOT_AUTHORIZED:    # the tool fails there: nothing committed
                console.write("stdout", f"{cls.error}{javawords.not_authorized(plan.refused)}\n")
                return OperationError.exit_code
            if plan.refused:
                console.write("stdout", javawords.refusal(plan.refused))
            for w in plan.warnings:
                console.write(*javawords.warning(w))
        for w in result.skips:
            console.write(*javawords.warning(w))
        if result.executed:
            console.write("stderr", f"Rollback file (the committed offsets before this reset): "
                                    f"{result.rollback_file}\n")
            for note in result.notes:
                console.write("stderr", note + "\n")
        code, detail = outcome_of(resets.finish, result)
        if result.outcomes:                 # what was applied, not applied and unknown
            console.write("stderr", f"{detail}\n")
        incomplete = cls.after(admin, p, result, console)
        failure = javawords.commit_failure(plans, result.errors, int(time.time() * 1000))
        if failure is not None:             # the tool's exception instead of its plan; kcli's account
            console.write("stdout", f"{cls.error}{failure}\n")
        elif p.has("export"):
            view.render_export(out, result.plans, req.with_group)
        else:
            out.write(cls.plan_text(plans))
        return PartialFailure.exit_code if incomplete and code == 0 else code

    @staticmethod
    def after(admin, p, result, console) -> bool:
        """What the tool does once the offsets are committed (kafka-streams-groups: delete topics);
        True when some of it failed (the offsets were committed: exit 3)."""
        return False


def _reset_flags(p, first):
    from kcli.ops.resets import ScenarioFlags

    def value(name):                        # kafka-share-groups has no --shift-by, --by-duration
        return p.value(name) if name in p.specs else None

    return ScenarioFlags(to_earliest=p.has("to-earliest"), to_latest=p.has("to-latest"),
                         to_current=p.has("to-current"), to_offset=first("to-offset"),
                         shift_by=value("shift-by"), to_datetime=first("to-datetime"),
                         by_duration=value("by-duration"), from_file=first("from-file"),
                         to_start_time=p.has("to-start-time"))


def _java_order(plans):
    from kcli import javaorder

    return javaorder.reset_plans(plans)


_GROUP_ACTIONS = {"list": _List, "describe": _Describe, "delete": _Delete, "delete-offsets": DeleteOffsets,
                  "reset-offsets": Reset}
