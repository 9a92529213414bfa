"""Runs a drop-in command line: the tool's grammar (``kcli.cli.dropin.<tool>``) reads it, then
kcli's operations (``kcli.ops``) do the work and ``kcli.render``'s plain views print it, so the
Java tool's stdout comes out byte for byte. What this module adds is the Java tools' way of
reporting: where each prints an error, and with which words.

Exit codes: 0 where the Java tool succeeds; 2 for bad usage, before any request (the Java tools
exit 1, and print their help table after the message: kcli prints the message alone); 1 when
the operation failed and 3 when it partly applied, where kafka-consumer-groups exits 0 after
most failures. Stack traces are never printed.

kcli's global options given before the tool's name (``kcli --profile prod kafka-topics --list``,
so that ``alias k='kcli --profile prod'`` runs a runbook's lines) apply to it (``Before``):
``--timeout`` bounds the command, ``-b`` and ``--profile`` supply the bootstrap servers where the
line has no ``--bootstrap-server``, ``--command-config`` and the profile's properties the client
settings (the line's ``--command-config`` overrides them key by key), ``--verbose`` adds a
``Detail:`` line on stderr to an error. ``-o`` is refused unless ``plain``: the drop-ins print the
Java tool's text, which no format changes. A setting given both before the name and in the line
is refused, as the Java tools refuse an option given twice.
"""

from __future__ import annotations

import importlib
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TextIO

from kcli import __version__
from kcli.cli.dropin import TOOLS, jopt
from kcli.cli.dropin.common import ShowHelp, ShowVersion, Usage
from kcli.errors import EXIT_FAILED, EXIT_USAGE, KcliError, OperationError, PartialFailure, UsageError
from kcli.inputs import printable

TOPIC_ERROR = "Error while executing topic command : "
GROUP_ERROR = "\nError: Executing consumer group command failed due to "
STREAMS_ERROR = "\nError: Executing streams group command failed due to "
OFFSETS_ERROR = "Error occurred: "


@dataclass
class Before:
    """kcli's global options given before a drop-in's name, read (see the module's text)."""
    bootstrap: str | None = None          # -b, else the profile's
    bootstrap_given: bool = False         # -b itself (the profile's yields to the line's)
    command_config: str | None = None
    properties: dict[str, str] = field(default_factory=dict)     # the profile's, then --command-config's
    timeout_ms: int | None = None
    verbose: bool = False


def read_before(tool: str, options: list[str]) -> Before:
    """``options`` (kcli.cli.globals.leading's) read and checked; a UsageError for a bad one."""
    from kcli import profiles
    from kcli.admin.settings import parse_timeout_ms, read_properties
    from kcli.cli.globals import check_not_empty, values
    from kcli.inputs import shown

    given = values(options)
    check_not_empty(given)
    output = given.get("output")
    if output is not None and output != "plain":
        raise UsageError(f"--output {shown(str(output))} does not apply to {tool}: the drop-ins print the Java "
                         f"tool's text (-o plain); kcli's own commands print json and csv (kcli --help)")
    profile = profiles.load_profile(given["profile"]) if "profile" in given else None
    command_config = given.get("command-config")
    bootstrap, properties = profiles.resolve(profile, given.get("bootstrap-server"),
                                             read_properties(command_config) if command_config is not None else {})
    before = Before(bootstrap=bootstrap, bootstrap_given="bootstrap-server" in given, command_config=command_config,
                    properties=properties, verbose=bool(given.get("verbose")))
    if "timeout" in given:
        before.timeout_ms = parse_timeout_ms(str(given["timeout"]))
    return before


def _line_with(grammar, tool: str, args: list[str], before: Before) -> list[str]:
    """The drop-in's line with the bootstrap servers ``before`` supplies where it has none."""
    try:
        parsed = jopt.parse(grammar.OPTIONS, args)
    except jopt.JoptError:
        return args                                  # the grammar says what is wrong
    for name, given in (("bootstrap-server", before.bootstrap_given),
                        ("command-config", before.command_config is not None)):
        if given and parsed.has(name):
            raise UsageError(f"--{name} is given both before {tool} and in its line: give it once")
    connects_elsewhere = any(map(parsed.has, ("bootstrap-server", "bootstrap-controller", "help", "version")))
    if args and before.bootstrap and not connects_elsewhere:
        return [*args, "--bootstrap-server", before.bootstrap]
    return args


class _Streams:
    def __init__(self, stdout: TextIO, stderr: TextIO, secrets: list[str], before: Before | None = None):
        self.stdout, self.stderr, self.secrets = stdout, stderr, secrets
        self.before = before or Before()
        self.connected_to, self.connected_to_ms = None, None      # what _admin connected to

    def write(self, stream: str, text: str) -> None:
        from kcli.redaction import redact_text

        (self.stdout if stream == "stdout" else self.stderr).write(redact_text(text, self.secrets))

    def failed(self, exc: KcliError) -> int:
        """An error's exit code, after its ``Detail:`` line on stderr under --verbose (before
        the tool's name): the error's kind, Kafka's error code and what caused it."""
        if self.before.verbose:
            parts = [type(exc).__name__]
            error = getattr(exc, "error", None)
            if error is not None:
                parts.append(f"Kafka error {error.name} ({error.code}): {error.message}")
            cause = exc.__cause__ or exc.__context__
            if cause is not None:
                parts.append(f"caused by {type(cause).__name__}: {cause}")
            if self.connected_to is not None:
                parts.append(f"bootstrap servers {self.connected_to}, timeout {self.connected_to_ms} ms")
            self.write("stderr", "Detail: " + "; ".join(parts).replace("\n", " ") + "\n")
        return exc.exit_code

    @property
    def timeout_ms(self) -> int:
        return self.before.timeout_ms or DEFAULT_TIMEOUT_MS


def run(tool: str, args: list[str], stdout: TextIO, stderr: TextIO, before_options: list[str] = ()) -> int:
    """One drop-in command line of ``tool`` (a key of TOOLS), after kcli's global options
    ``before_options`` (given before the tool's name); its exit code. The last resort, as for
    the native commands (``kcli.cli.main``): whatever the tool's own reporting did not foresee
    is one line on stderr, never a traceback (a conversion jopt refuses: usage, 2; anything
    else: 1)."""
    streams = _Streams(stdout, stderr, [])
    try:
        return _run(tool, args, streams, list(before_options))
    except (BrokenPipeError, KeyboardInterrupt):
        raise
    except jopt.JoptError as exc:
        streams.write("stderr", f"{exc}\n")
        return EXIT_USAGE
    except Exception as exc:  # noqa: BLE001 - last resort: one line, never a traceback
        streams.write("stderr", f"Error: {str(exc) or type(exc).__name__}\n")
        return EXIT_FAILED


def _run(tool: str, args: list[str], streams: _Streams, before_options: list[str]) -> int:
    stdout, stderr = streams.stdout, streams.stderr
    grammar = importlib.import_module(f"kcli.cli.dropin.{TOOLS[tool]}")
    try:
        before = read_before(tool, list(before_options))
        args = _line_with(grammar, tool, args, before)
    except UsageError as exc:
        stderr.write(f"{exc.message}\n")
        return EXIT_USAGE
    try:
        request = grammar.read(args)
    except ShowHelp as exc:
        stderr.write(f"{exc}\n{jopt.help_text(grammar.OPTIONS)}")
        return 1
    except ShowVersion:
        stdout.write(f"kcli {__version__}\n")
        return 0
    except Usage as exc:
        (stdout if exc.stream == "stdout" else stderr).write(exc.message + "\n")
        return EXIT_USAGE
    from kcli.redaction import secret_values

    streams.secrets, streams.before = secret_values(before.properties), before
    for stream, line in getattr(request, "notices", []):
        streams.write(stream, line + "\n")
    return _EXECUTORS[tool](request, streams)


# -- connecting ----------------------------------------------------------------------------------

@contextmanager
def _admin(bootstrap: str, command_config: str | None, timeout_ms: int, streams: _Streams):
    """The admin adapter for the tool's --bootstrap-server and --command-config (over the
    properties given before the tool's name, key by key), bounded by one deadline; closed at the
    end."""
    from kcli.admin.client import KafkaAdmin
    from kcli.admin.settings import ClientSettings, read_properties
    from kcli.redaction import secret_values

    props = dict(streams.before.properties)
    if command_config is not None:
        props.update(read_properties(command_config))
    streams.secrets[:] = sorted(set(secret_values(props)), key=len, reverse=True)
    settings = ClientSettings(bootstrap, props, timeout_ms, deadline=time.monotonic() + timeout_ms / 1000)
    settings.validate()
    streams.connected_to, streams.connected_to_ms = bootstrap, timeout_ms
    admin = KafkaAdmin(settings)
    admin.on_note = lambda line: streams.write("stderr", line + "\n")     # kcli.admin.fallback's Warn lines
    try:
        yield admin
    finally:
        admin.close()


def _output(streams: _Streams):
    from kcli.render.output import Output

    return Output("plain", streams.stdout, streams.stderr)


DEFAULT_TIMEOUT_MS = 30_000


# -- kafka-topics ----------------------------------------------------------------------------------

def _topics(req, streams: _Streams) -> int:
    p = req.parsed
    try:
        values = {name: p.value(name) for name in ("topic", "topic-id", "partitions", "replication-factor",
                                                   "replica-assignment", "command-config",
                                                   "partition-size-limit-per-response")}
        values["config"] = p.values("config")
    except jopt.JoptError as exc:
        streams.write("stdout", f"{TOPIC_ERROR}{exc}\n")
        return EXIT_USAGE
    try:
        with _admin(req.bootstrap, values["command-config"], streams.timeout_ms, streams) as admin:
            _topic_action(req.action, p, values, admin, _output(streams))
    except KcliError as exc:
        streams.write("stdout", f"{TOPIC_ERROR}{exc.message}\n")
        return streams.failed(exc)
    return 0


def _topic_action(action: str, p, v: dict, admin, out) -> None:
    from kcli import specs
    from kcli.ops import topics as lib
    from kcli.render import topics as view

    patterns = [v["topic"]] if v["topic"] is not None else []
    if action == "list":
        view.render_list(out, lib.select_topics(admin, patterns, p.has("exclude-internal"), if_exists=True))
    elif action == "describe":
        if v["topic-id"] is not None and v["topic-id"] != ZERO_UUID:
            pairs, summaries = lib.describe_by_id(admin, v["topic-id"], **_reports(p))
        else:
            pairs, summaries = lib.describe(admin, patterns, **_reports(p))
        view.render_describe(out, pairs, summaries)
    elif action == "create":
        name = v["topic"]
        assignment = lib.check_new_topic(v["partitions"], v["replication-factor"], v["replica-assignment"])
        configs = specs.parse_topic_config_java(v["config"])
        if lib.may_collide(name):        # before the name's check, as kafka-topics
            out.line(lib.COLLISION_WARNING)
        specs.check_topic_name(name)
        created = lib.create(admin, name, v["partitions"], v["replication-factor"], configs, assignment,
                             p.has("if-not-exists"))
        view.render_created(out, name, created)
    elif action == "alter":
        assignment = (specs.parse_replica_assignment(v["replica-assignment"])
                      if v["replica-assignment"] is not None else None)
        specs.check_partition_count(v["partitions"])
        lib.add_partitions(admin, patterns, v["partitions"], assignment, p.has("if-exists"))
    else:
        lib.delete(admin, patterns, p.has("if-exists"))


ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA"


def _reports(p) -> dict:
    return dict(exclude_internal=p.has("exclude-internal"), if_exists=p.has("if-exists"),
                under_replicated=p.has("under-replicated-partitions"),
                under_min_isr=p.has("under-min-isr-partitions"), at_min_isr=p.has("at-min-isr-partitions"),
                unavailable=p.has("unavailable-partitions"), with_overrides=p.has("topics-with-overrides"))


# -- kafka-get-offsets -------------------------------------------------------------------------------

def _offsets(req, streams: _Streams) -> int:
    from kcli import specs
    from kcli.ops import list_offsets as lib

    p = req.parsed
    try:
        topic, partitions, topic_partitions = p.value("topic"), p.value("partitions"), p.value("topic-partitions")
        if topic_partitions is not None and (topic is not None or partitions is not None):
            raise UsageError("--topic-partitions cannot be used with --topic or --partitions")
        time_value = p.value("time")
        if time_value not in specs.NAMED_TIMES and not _is_long(time_value):
            raise UsageError(f"Malformed time argument {printable(time_value)}. Please use -1 or latest / -2 or earliest / "
                             "-3 or max-timestamp / -4 or earliest-local / -5 or latest-tiered / -6 or "
                             "earliest-pending-upload, or a specified long format timestamp")
        when = specs.NAMED_TIMES.get(time_value)
        if when is None:          # a timestamp: from the epoch on (never one of the special values)
            when = specs.parse_time(time_value)

        try:
            rules = specs.partition_rules([topic] if topic is not None else [], partitions, topic_partitions)
        except specs.InvalidRule as exc:
            raise UsageError(f"org.apache.kafka.tools.TerseException: {exc.message}") from None
    except UsageError as exc:
        streams.write("stderr", f"{OFFSETS_ERROR}{exc.message}\n")
        return EXIT_USAGE
    out = _output(streams)
    try:
        with _admin(req.bootstrap, p.value("command-config"), streams.timeout_ms, streams) as admin:
            offsets = lib.list_offsets(admin, rules, when, p.has("exclude-internal-topics"))
    except KcliError as exc:
        streams.write("stderr", f"{OFFSETS_ERROR}{exc.message}\n")
        return streams.failed(exc)
    from kcli.render.offsets import render_offsets

    render_offsets(out, offsets, time_value)
    return 1 if any(o.error for o in offsets) else 0


def _is_long(text: str) -> bool:
    return jopt.java_integer(text, "Long") is not None


# -- kafka-configs -------------------------------------------------------------------------------------

def _configs(req, streams: _Streams) -> int:
    from kcli import specs
    from kcli.admin.settings import read_properties

    p = req.parsed
    rtype = "topic" if req.entity_type == "topics" else "broker"
    try:
        adds: dict[str, str] = {}
        if req.action == "alter":
            if p.has("add-config-file"):
                adds.update(read_properties(p.value("add-config-file"), "--add-config-file"))
            if p.has("add-config"):
                adds.update(specs.parse_add_config(p.value("add-config")))
            deletes = specs.parse_delete_config(p.values("delete-config")) if p.has("delete-config") else []
        command_config = p.value("command-config")
    except (UsageError, jopt.JoptError) as exc:
        streams.write("stderr", f"{getattr(exc, 'message', exc)}\n")
        return EXIT_USAGE
    out = _output(streams)
    try:
        with _admin(req.bootstrap, command_config, streams.timeout_ms, streams) as admin:
            if req.action == "alter":
                from kcli.ops.configs import alter

                alter(admin, rtype, req.entity_name, adds, deletes)
                if req.entity_name:
                    out.line(f"Completed updating config for {req.entity_type[:-1]} {req.entity_name}.")
                else:
                    out.line(f"Completed updating default config for {req.entity_type} in the cluster.")
                return 0
            _describe_configs(admin, out, req, rtype, p.has("all"))
    except KcliError as exc:
        streams.write("stderr", f"{exc.message}\n")
        return streams.failed(exc)
    return 0


def _describe_configs(admin, out, req, rtype: str, show_all: bool) -> None:
    from kcli.ops import configs as lib
    from kcli.render.configs import plain_configs

    for name, resource in lib.describe_for_tool(admin, rtype, req.entity_name, show_all):
        if resource is None:
            out.line(f"The {req.entity_type[:-1]} '{name}' doesn't exist and doesn't have dynamic config.")
        elif name == "":
            out.write(plain_configs(resource, show_all, default_brokers=True))
        else:
            out.write(plain_configs(resource, show_all))


# -- kafka-consumer-groups -------------------------------------------------------------------------------

def _groups(req, streams: _Streams) -> int:
    from kcli.specs import re2_error

    p = req.parsed
    if req.action == "validate-regex":
        regex = p.value("validate-regex")
        error = re2_error(regex)
        streams.write("stdout", f"The regular expression `{regex}` is valid.\n" if error is None else
                      f"The regular expression `{regex}` is invalid: {error}.\n")
        return 0
    return _group_tool(req, streams, _GROUP_ACTIONS, GROUP_ERROR,
                       lambda exc: Usage(f"{GROUP_ERROR}{exc}", "stdout"))


def _group_tool(req, streams: _Streams, actions: dict, error_prefix: str, conversion) -> int:
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
        if streams.before.timeout_ms is not None:      # kcli's --timeout before the name: the shorter
            timeout_ms = min(timeout_ms, streams.before.timeout_ms) if p.has("timeout") else streams.before.timeout_ms
        action = actions[req.action]
        prepared = action.prepare(p) if hasattr(action, "prepare") else None
    except Usage as exc:
        streams.write(exc.stream, f"{exc.message}\n")
        return EXIT_USAGE
    except UsageError as exc:            # the Java tool's IllegalArgumentException: usage, stderr
        streams.write("stderr", f"{exc.message}\n")
        return EXIT_USAGE
    try:
        with _admin(bootstrap, command_config, timeout_ms, streams) as admin:
            return action.execute(admin, p, prepared, _output(streams), streams)
    except UsageError as exc:
        streams.write("stderr", f"{exc.message}\n")
        return EXIT_USAGE
    except KcliError as exc:
        from kcli.ops.resets import StartTimeUnavailable

        if isinstance(exc, StartTimeUnavailable):
            from kcli.cli.dropin import javawords

            streams.write("stdout", javawords.start_time_error(exc, error_prefix))
        else:
            streams.write("stdout", f"{error_prefix}{_java_message(exc)}\n")
        return streams.failed(exc)


def _java_message(exc: KcliError) -> str:
    """The Java tool's words where kcli's differ: a topic that does not exist, named whole."""
    from kcli.ops.resets import MissingPartitions
    from kcli.render.javatext import ERRORS

    if isinstance(exc, MissingPartitions) and exc.whole_topics:
        return ERRORS[3][2]
    return exc.message


def _exit_of(check, *args) -> int:
    """An operation's exit code once its results are shown (nothing more printed: the Java
    tool's output already says what failed)."""
    try:
        check(*args)
    except KcliError as exc:
        return exc.exit_code
    return 0


class _List:
    @staticmethod
    def prepare(p):
        from kcli import specs

        states, types = p.raw("state"), p.raw("type")
        return (specs.parse_states(states) if states else None, specs.parse_types(types) if types else None)

    @staticmethod
    def execute(admin, p, prepared, out, streams) -> int:
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
    def execute(admin, p, prepared, out, streams) -> int:
        from kcli.ops import groups as lib
        from kcli.render import groups as view

        descs = sorted(admin.describe_groups(_group_ids(admin, p)), key=lambda d: d.group_id)
        missing = [d for d in descs if not d.exists]
        if missing:
            raise OperationError(f"org.apache.kafka.common.errors.GroupIdNotFoundException: Group "
                                 f"{missing[0].group_id} not found.")
        verbose = p.has("verbose")
        offsets = not p.has("members") and not p.has("state")
        rows = dict((d.group_id, rows) for d, rows in lib.offset_views(admin, descs)) if offsets else {}
        for d in descs:
            notice = lib.state_notice(d)
            if notice:
                streams.write("stderr", "\n" + notice + "\n")
            if p.has("members"):
                view.render_members(out, [d], verbose)
            elif p.has("state"):
                view.render_state(out, [d], verbose)
            else:
                view.render_offsets(out, [(d, rows[d.group_id])], verbose)
        return 0


class _Delete:
    @staticmethod
    def execute(admin, p, prepared, out, streams) -> int:
        from kcli.ops import groups as lib
        from kcli.render import groups as view

        results = admin.delete_groups(_group_ids(admin, p))
        view.render_delete_groups(out, results)
        return _exit_of(lib.check_deleted, results)


class _DeleteOffsets:
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
    def execute(admin, p, prepared, out, streams) -> int:
        from kcli.ops import groups as lib
        from kcli.render import groups as view

        group, topics = prepared
        group_error, rows = lib.delete_offsets(admin, group, topics)
        view.render_delete_offsets(out, group, group_error, rows)
        return _exit_of(lib.check_offsets_deleted, group, group_error, rows)


class _Reset:
    """kcli's reset with the Java tool's command line. kcli's safety rules stay: a rollback file
    before any commit (named on stderr), skipped unread records named on stderr. An active group
    is not reset (the tool's error line, an empty plan) while the others are (exit 3). The Java tool has no --allow-skip: --execute commits a plan that
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

        first = lambda name: (p.values(name) or [None])[0]      # the tool reads the first (valuesOf)
        try:
            flags = _reset_flags(p, first)
        except jopt.JoptError as exc:
            raise cls.conversion(exc) from None
        try:          # the Java tool's grammars for times: Utils.getDateTime, Duration.parse
            if flags["to-datetime"] is not None:
                flags["to-datetime"] = str(parse_java_datetime_ms(flags["to-datetime"]))
            if flags["by-duration"] is not None:
                parse_java_duration_ms(flags["by-duration"])
        except TimeParseError as exc:
            raise Usage(f"{cls.error}{exc}", "stdout") from None
        topics, all_topics = cls.scope(p)
        req = resets.request(groups=p.values("group"), all_groups=p.has("all-groups"), topics=topics,
                             all_topics=all_topics, scenario_flags=flags, max_age=None,
                             dry_run=p.has("dry-run"), execute=p.has("execute"), allow_skip=True,
                             rollback_file=None, now_ms=int(time.time() * 1000))
        req.streams_tool = cls.streams_tool
        return req

    streams_tool = False

    @staticmethod
    def plan_text(plans) -> str:
        from kcli.render import groups as view

        return view.plain_plan(plans)

    @classmethod
    def execute(cls, admin, p, req, out, streams) -> int:
        from kcli.cli.dropin import javawords
        from kcli.offsets.plan import NoCommittedOffset
        from kcli.ops import resets
        from kcli.render import groups as view

        try:
            result = resets.reset(admin, req, int(time.time() * 1000))
        except NoCommittedOffset as exc:                 # a usage error for the Java tool
            raise UsageError(exc.java_message) from None
        plans = _java_order(result.plans)        # the tool prints while it walks its map of groups
        for plan in plans:
            if plan.refused:
                streams.write("stdout", javawords.refusal(plan.refused))
            for w in plan.warnings:
                streams.write(*javawords.warning(w))
        for w in result.skips:
            streams.write(*javawords.warning(w))
        if result.executed:
            streams.write("stderr", f"Rollback file (the committed offsets before this reset): "
                                    f"{result.rollback_file}\n")
            for note in result.notes:
                streams.write("stderr", note + "\n")
        incomplete = cls.after(admin, p, result, streams)
        if p.has("export"):
            view.render_export(out, result.plans, req.with_group)
        else:
            out.write(cls.plan_text(plans))
        code = _exit_of(resets.finish, result)
        return PartialFailure.exit_code if incomplete and code == 0 else code

    @staticmethod
    def after(admin, p, result, streams) -> bool:
        """What the tool does once the offsets are committed (kafka-streams-groups: delete topics);
        True when some of it failed (the offsets were committed: exit 3)."""
        return False


def _reset_flags(p, first) -> dict:
    return {"to-earliest": p.has("to-earliest"), "to-latest": p.has("to-latest"),
            "to-current": p.has("to-current"), "to-offset": first("to-offset"),
            "shift-by": p.value("shift-by"), "to-datetime": first("to-datetime"),
            "by-duration": p.value("by-duration"), "from-file": first("from-file"),
            "to-start-time": p.has("to-start-time")}


def _java_order(plans):
    from kcli import javaorder

    return javaorder.reset_plans(plans)


_GROUP_ACTIONS = {"list": _List, "describe": _Describe, "delete": _Delete, "delete-offsets": _DeleteOffsets,
                  "reset-offsets": _Reset}
_EXECUTORS = {"kafka-topics": _topics, "kafka-consumer-groups": _groups, "kafka-get-offsets": _offsets,
              "kafka-configs": _configs}


# -- kafka-streams-groups ------------------------------------------------------------------------------

def _streams_groups(req, streams: _Streams) -> int:
    """kafka-streams-groups: a value jopt cannot convert is a usage error there (stderr)."""
    return _group_tool(req, streams, _STREAMS_ACTIONS, STREAMS_ERROR, lambda exc: Usage(str(exc)))


STREAMS_STATES = ("Assigning", "Empty", "Dead", "NotReady", "Stable", "Reconciling")   # the tool's order


class _StreamsList:
    @staticmethod
    def prepare(p):
        text = p.raw("state")
        if not text:
            return None
        by_upper = {s.upper(): s for s in STREAMS_STATES}
        states = {by_upper.get(s.strip().upper()) for s in text.split(",")}
        if None in states:
            raise UsageError(f"Invalid state list '{text}'. Valid states are: {', '.join(STREAMS_STATES)}")
        return states

    @staticmethod
    def execute(admin, p, states, out, streams) -> int:
        from kcli.render import streams as view

        listed = [g for g in admin.list_streams_groups() if not states or g.state in states]
        out.write(view.plain_list(listed, p.has("state")))
        return 0


def _streams_ids(admin, p) -> list[str]:
    if p.has("all-groups"):
        return [g.group_id for g in admin.list_streams_groups()]
    return p.values("group")


class _StreamsDescribe:
    @staticmethod
    def execute(admin, p, prepared, out, streams) -> int:
        from kcli.ops import streams as lib
        from kcli.render import streams as view

        verbose, code = p.has("verbose"), 0
        for gid in _streams_ids(admin, p):      # one at a time, as the tool: a missing group ends it
            if p.has("topology"):
                code = max(code, _topology(admin, gid, out))
                continue
            d = lib.described(admin, gid)
            if p.has("state"):
                out.write(view.java_notice(d) + view.plain_state(d, verbose))
                continue
            notice = view.java_notice(d) if d.members and d.state != "Dead" else ""
            if p.has("members"):
                out.write(notice + view.plain_java_members(d, verbose))
            else:
                rows = lib.task_offsets(admin, d) if d.members else []
                out.write(notice + view.plain_task_offsets(d, rows, verbose))
        return code


def _topology(admin, gid: str, out) -> int:
    """--topology: the broker's answer on its topology description (a description itself is not
    printed: kcli has no formatter for it yet, and says so)."""
    status = admin.streams_topology_status(gid)
    words = {"NOT_STORED": f"No topology description is stored for streams group '{gid}'.",
             "ERROR": f"The broker failed to fetch the topology description for streams group '{gid}'. "
                      "See the broker logs for details.",
             "AVAILABLE": f"The topology description of streams group '{gid}' is stored, but kcli does not "
                          "print topology descriptions."}
    out.write("\nError: " + words.get(status, f"No topology description is available for streams group "
                                                f"'{gid}' (status: {status}).") + "\n")
    return 1


class _StreamsReset(_Reset):
    """kafka-streams-groups --reset-offsets: kafka-consumer-groups' reset (kcli's rules kept) on
    the group's input topics; a value jopt cannot convert is a usage error; then the internal
    topics --delete-internal-topic / --delete-all-internal-topics name are deleted."""
    error = STREAMS_ERROR
    streams_tool = True          # --all-groups: the streams groups; only --input-topic partitions committed

    @classmethod
    def conversion(cls, exc) -> Usage:
        return Usage(str(exc))

    @classmethod
    def scope(cls, p) -> tuple[list[str], bool]:
        if not (p.has("input-topic") or p.has("all-input-topics") or p.has("from-file")):
            raise Usage("One of the reset scopes should be defined: --all-input-topics, --input-topic.")
        return ([] if p.has("all-input-topics") else p.values("input-topic")), p.has("all-input-topics")

    @staticmethod
    def plan_text(plans) -> str:
        from kcli.render import streams as view

        return view.plain_plan(plans)

    @staticmethod
    def after(admin, p, result, streams) -> bool:
        if not result.executed:
            return False
        from kcli.ops import streams as lib
        from kcli.render.javatext import exception_text

        failed = False
        for plan in result.plans:
            g = plan.group
            topics = (lib.internal_topics(admin, [g]).get(g, []) if p.has("delete-all-internal-topics")
                      else p.values("delete-internal-topic"))
            errors = list(lib.delete_topics_of(admin, {g: topics}).get(g, {}).values()) if not plan.refused else []
            failed = failed or bool(errors)
            if any(e.code == UNKNOWN_TOPIC_OR_PARTITION for e in errors):
                streams.write("stdout", f"\nError: Deleting internal topics for group '{g}' failed because the "
                                        "topics do not exist.\n")
            elif errors:
                streams.write("stdout", f"\nError: Deleting internal topics for group '{g}' failed due to "
                                        f"{exception_text(errors[0].code, errors[0].message)}\n")
        return failed


class _StreamsDelete:
    @staticmethod
    def execute(admin, p, prepared, out, streams) -> int:
        from kcli.ops import streams as lib
        from kcli.render import streams as view
        from kcli.render.javatext import exception_text

        ids = list(dict.fromkeys(_streams_ids(admin, p)))
        results: dict[str, str | None] = dict(lib.delete_refusals(admin, ids))
        rest = [g for g in ids if g not in results]
        internal = lib.internal_topics(admin, rest) if rest and p.has("delete-all-internal-topics") else {}
        for g, e in (admin.delete_groups(rest) if rest else {}).items():
            results[g] = None if e is None else exception_text(e.code, e.message)
        deleted = [g for g in internal if results.get(g) is None]
        failed = lib.delete_topics_of(admin, {g: internal[g] for g in deleted})
        out.write("".join(f"Failed to delete internal topic: {t}\n" for errors in failed.values() for t in errors))
        out.write(view.plain_delete(results))
        if internal and deleted:
            out.write(view.plain_internal_deletion(deleted, {g: exception_text(e.code, e.message) for g, errors
                                                             in failed.items() for e in list(errors.values())[:1]}))
        return 1 if any(e is not None for e in results.values()) or failed else 0


class _StreamsDeleteOffsets(_DeleteOffsets):
    @staticmethod
    def prepare(p):
        from kcli.specs import parse_topic_spec

        topics = p.values("input-topic")
        for spec in topics:
            parse_topic_spec(spec)
        return p.value("group"), topics

    @staticmethod
    def execute(admin, p, prepared, out, streams) -> int:
        from kcli.ops import groups as lib
        from kcli.ops import streams as streams_lib
        from kcli.render import groups as view

        group, topics = prepared
        if p.has("all-input-topics"):
            topics = [f"{t}:{n}" for t, n in streams_lib.input_partitions(admin, group)]
        group_error, rows = lib.delete_offsets(admin, group, topics)
        view.render_delete_offsets(out, group, group_error, rows)
        return _exit_of(lib.check_offsets_deleted, group, group_error, rows)


UNKNOWN_TOPIC_OR_PARTITION = 3


_STREAMS_ACTIONS = {"list": _StreamsList, "describe": _StreamsDescribe, "reset-offsets": _StreamsReset,
                    "delete": _StreamsDelete, "delete-offsets": _StreamsDeleteOffsets}
_EXECUTORS["kafka-streams-groups"] = _streams_groups
