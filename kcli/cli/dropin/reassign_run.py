"""kafka-reassign-partitions' execution (its grammar: ``kcli.cli.dropin.reassign``): --generate,
--execute, --verify, --cancel and --list on kcli's operations (``kcli.ops.reassign``, the native
``kcli reassign partitions``'s), in the tool's lines and orders. The tool prints its errors on
stdout: a refusal as its message, a failure as ``Error: `` and the exception's message (and a
stack trace, which kcli leaves out); exit 1. A file or broker list the tool refuses is its
``Error:`` line on stdout, exit 2, nothing sent. --execute writes a rollback file (the replicas
before the moves) before any change and names it on stderr."""

from __future__ import annotations

from kcli.cli.dropin.run import Console, admin_for
from kcli.errors import EXIT_FAILED, EXIT_USAGE, BrokerRejected, KcliError

UNKNOWN_TOPIC = "org.apache.kafka.common.errors.UnknownTopicOrPartitionException"
CANNOT_EXECUTE = ("Cannot execute because there is an existing partition assignment.  Use --additional to "
                  "override this and create a new partition assignment in addition to the existing one. The "
                  "--additional flag can also be used to change the throttle by resubmitting the current "
                  "reassignment.")
VERIFY_PERIODICALLY = ("Warning: You must run --verify periodically, until the reassignment completes, to ensure "
                       "the throttle is removed.")
NO_RACKS = ("Not all brokers have rack information. Add --disable-rack-aware in command line to make replica "
            "assignment without rack information.")


class Refused(Exception):
    """The tool's failure: ``text`` on stdout, then ``code``; kcli's own refusal (what the drop-in
    cannot do) on stderr."""

    def __init__(self, text: str, code: int = EXIT_FAILED, stream: str = "stdout"):
        super().__init__(text)
        self.text, self.code, self.stream = text, code, stream


def _error(message: str, code: int = EXIT_FAILED) -> Refused:
    """A failure the tool reports as ``Error: <message>`` (and its stack trace)."""
    return Refused(f"Error: {message}", code)


def _tp(tp) -> str:
    return f"{tp[0]}-{tp[1]}"


def _s(items) -> str:
    return "" if len(items) == 1 else "s"


def execute(req, console: Console) -> int:
    from kcli.cli.dropin.reassign import JsonError

    out: list[str] = []                   # stdout, written as the tool prints it (also on failure)
    try:
        text = None if req.action == "list" else _read(req.json_file)
        prepared = _PREPARE[req.action](req, text) if text is not None else None
        with admin_for(req.bootstrap, req.command_config, console.timeout_ms, console) as admin:
            _ACTIONS[req.action](admin, req, prepared, out, console)
    except JsonError as exc:
        return _end(console, out, f"Error: {exc.message}", EXIT_USAGE)
    except Refused as exc:
        if exc.stream == "stderr":
            console.write("stdout", "".join(out))
            console.write("stderr", exc.text + "\n")
            return exc.code
        return _end(console, out, exc.text, exc.code)
    except BrokerRejected as exc:           # a future's ExecutionException: the cause's toString()
        from kcli.render.javatext import exception_with

        return _end(console, out, "Error: " + exception_with(exc.error.code, exc.error.message), EXIT_FAILED)
    except KcliError as exc:
        console.write("stdout", "".join(out))
        console.write("stderr", f"{exc.message}\n")
        return console.failed(exc)
    console.write("stdout", "".join(out))
    return 0


def _end(console: Console, out: list[str], text: str, code: int) -> int:
    console.write("stdout", "".join(out) + text + "\n")
    return code


def _read(path: str) -> str:
    """Utils.readFileAsString: a file that cannot be read is its IOException."""
    from kcli.errors import UsageError
    from kcli.inputs import printable, read_text

    try:
        return read_text(path, "--reassignment-json-file")
    except UsageError:
        raise Refused(f"Error: Unable to read file {printable(path)}", EXIT_USAGE) from None


def _java_set(items) -> str:
    """A Java HashSet's toString, of ints or strings."""
    from kcli import javaorder

    items = list(dict.fromkeys(items))
    ordered = javaorder.integers(items) if items and isinstance(items[0], int) else javaorder.strings(items)
    return "[" + ", ".join(map(str, ordered)) + "]"


def _message(error) -> str:
    """The Java exception's getMessage() for a partition's error: the broker's message, or the
    exception's default."""
    from kcli.render.javatext import ERRORS

    return error.message or ERRORS.get(error.code, ("", "", error.name))[2]


def _duplicates(items: list) -> list:
    seen, dups = set(), []
    for item in items:
        if item in seen and item not in dups:
            dups.append(item)
        seen.add(item)
    return dups


# -- before any request: the files read as the tool reads them ---------------------------------------

def _prepare_generate(req, text: str):
    from kcli.cli.dropin.reassign import parse_broker_list, parse_topics

    brokers = parse_broker_list(req.broker_list)
    if _duplicates(brokers):
        raise _error(f"Broker list contains duplicate entries: {_java_set(_duplicates(brokers))}", EXIT_USAGE)
    topics = parse_topics(text)
    if _duplicates(topics):
        raise _error(f"List of topics to reassign contains duplicate entries: {_java_set(_duplicates(topics))}",
                     EXIT_USAGE)
    return brokers, topics


def _prepare_execute(req, text: str):
    from kcli.cli.dropin.reassign import check_execute, parse_reassignment

    parts, log_dirs = parse_reassignment(text)
    plan = check_execute(parts)
    if log_dirs:
        raise Refused("kcli kafka-reassign-partitions cannot move replicas between log dirs (AlterReplicaLogDirs): "
                      'give "any" as each replica\'s log dir', EXIT_USAGE, "stderr")
    return plan


def _prepare_targets(req, text: str):
    from kcli.cli.dropin.reassign import parse_reassignment

    return parse_reassignment(text)


_PREPARE = {"generate": _prepare_generate, "execute": _prepare_execute, "verify": _prepare_targets,
            "cancel": _prepare_targets}


# -- the actions ------------------------------------------------------------------------------------------

def _current(admin, topics: list[str]) -> dict:
    """Each partition's replicas (the topics' describe), the first missing topic refused as the
    tool's describeTopics names it (its futures' HashMap order)."""
    from kcli import javaorder
    from kcli.ops.reassign import replicas_now

    current = replicas_now(admin, topics)
    found = {t for t, _ in current}
    for topic in javaorder.described_topics(list(dict.fromkeys(topics))):
        if topic not in found:
            raise _error(f"{UNKNOWN_TOPIC}: Topic {topic} not found.")
    return current


def _generate(admin, req, prepared, out: list[str], console: Console) -> None:
    """generateAssignment: the current assignment (each replica's log dir) and a proposal over the
    brokers of --broker-list that are in the cluster (kcli's round robin: Java's placer starts at
    a random broker)."""
    from kcli.ops.reassign import balanced, plan_json, replica_log_dirs, usable_brokers

    brokers, topics = prepared
    current = _current(admin, topics)
    log_dirs = replica_log_dirs(admin, current)
    usable = usable_brokers(admin, brokers)
    racked = sum(1 for b in usable if b.rack is not None)
    if req.rack_aware and 0 < racked < len(usable):
        raise _error(NO_RACKS)
    factor = max((len(r) for r in current.values()), default=0)      # the placer's checks, per topic placed
    if current and not usable:
        raise _error("All brokers are currently fenced, or have all their log directories cordoned.")
    if factor > len(usable):
        raise _error(f"The target replication factor of {factor} cannot be reached because only {len(usable)} "
                     "broker(s) are registered or some brokers have all their log directories cordoned.")
    proposed = balanced(current, [b.node_id for b in usable])
    out.append(f"Current partition replica assignment\n{plan_json(current, log_dirs)}\n\n")
    out.append(f"Proposed partition reassignment configuration\n{plan_json(proposed)}\n")


def _execute(admin, req, plan, out: list[str], console: Console) -> None:
    """executeAssignment, with kcli's rollback file written before any change."""
    from kcli import javaorder
    from kcli.ops import reassign as lib
    from kcli.ops.logdirs import live_brokers

    moving = lib.ongoing(admin)
    if moving and not req.additional:
        raise Refused(CANNOT_EXECUTE)
    known = set(live_brokers(admin))
    for broker in javaorder.integers(dict.fromkeys(b for replicas in plan.values() for b in replicas)):
        if broker not in known:
            raise _error(f"Unknown broker id {broker}")
    current = _current(admin, [t for t, _ in plan])
    missing = [tp for tp in plan if tp not in current]
    if missing:               # a HashSet copy of the plan's partitions, those found removed
        shown = ", ".join(_tp(tp) for tp in javaorder.topic_partitions(plan, javaorder.hash_set_copy(len(plan)))
                          if tp in missing)
        raise _error(f"{UNKNOWN_TOPIC}: Unable to find partition: {shown}")
    before = {tp: current[tp] for tp in plan}
    log_dirs = lib.replica_log_dirs(admin, before)
    rollback = lib.rollback_path()
    lib.write_rollback(rollback, before, log_dirs)
    console.write("stderr", f"Rollback file (the replicas before this reassignment): {rollback}\n")
    out.append(f"Current partition replica assignment\n\n{lib.plan_json(before, log_dirs)}\n\n"
               "Save this to use as the --reassignment-json-file option during rollback\n")
    if req.throttle >= 0 or req.log_dir_throttle >= 0:
        out.append(VERIFY_PERIODICALLY + "\n")
        if req.throttle >= 0:
            lib.set_throttles(admin, plan, current, moving, req.throttle)
            out.append(f"The inter-broker throttle limit was set to {req.throttle} B/s\n")
        if req.log_dir_throttle >= 0:          # no replica moves between log dirs: no broker to set
            out.append(f"The replica-alter-dir throttle limit was set to {req.log_dir_throttle} B/s\n")
    results = lib.start(admin, plan, req.allow_rf_change)
    failed = sorted(tp for tp, e in results.items() if e is not None)
    if failed:
        raise Refused("Error reassigning partition(s):\n" + "\n".join(
            f"{_tp(tp)}: {_message(results[tp])}" for tp in failed))
    out.append(f"Successfully started partition reassignment{_s(plan)} for {','.join(map(_tp, sorted(plan)))}\n")


def _log_dir_lines(states: dict, targets: dict) -> tuple[list[str], bool]:
    """replicaMoveStatesToString's lines (by broker, topic, partition), and whether a move is
    not done."""
    lines, pending = [], False
    for (t, p, b) in sorted(states, key=lambda k: (k[2], k[0], k[1])):
        info, target = states[(t, p, b)], targets[(t, p, b)]
        current, future = (info or {}).get("current"), (info or {}).get("future")
        if info is None:
            lines.append(f"Partition {t}-{p} cannot be found in any live log directory on broker {b}.")
        elif current is None:
            lines.append(f"Partition {t}-{p} is not found in any live log dir on broker {b}. There is likely an "
                         "offline log directory on the broker.")
        elif future is None:
            lines.append(f"Reassignment of replica {t}-{p}-{b} completed successfully." if current == target else
                         f"Partition {t}-{p} on broker {b} is not being moved from log dir {current} to {target}.")
            continue
        elif future == target:
            lines.append(f"Reassignment of replica {t}-{p}-{b} is still in progress.")
        else:
            lines.append(f"Partition {t}-{p} on broker {b} is being moved to log dir {future} instead of {target}.")
        pending = True
    return lines, pending


def _clear(admin, parts: list, out: list[str]) -> None:
    """clearAllThrottles: the brokers (the cluster's and the plan's) and topics named in the tool's
    HashSet orders, then every reassignment throttle removed."""
    from kcli.ops.logdirs import live_brokers
    from kcli.ops.reassign import clear_throttles
    from kcli.render.reassign import clearing_lines

    brokers = [*live_brokers(admin), *(b for _, replicas in parts for b in replicas)]
    topics = [t for (t, _), _ in parts]
    out.append("".join(line + "\n" for line in clearing_lines(brokers, topics)))
    clear_throttles(admin, topics)


def _verify(admin, req, prepared, out: list[str], console: Console) -> None:
    from kcli.ops import reassign as lib
    from kcli.render.reassign import progress_lines

    parts, targets = prepared
    plan = dict(parts)
    states = lib.progress(admin, plan)
    out.append("".join(line + "\n" for line in ["Status of partition reassignment:",
                                                *progress_lines(states, plan, java=True)]))
    lines, pending = _log_dir_lines(lib.log_dir_states(admin, targets), targets) if targets else ([], False)
    out.append("".join(line + "\n" for line in lines) or "\n")
    if not lib.ongoing(admin) and not pending and not req.preserve_throttles:
        _clear(admin, parts, out)


def _cancel(admin, req, prepared, out: list[str], console: Console) -> None:
    from kcli.ops.reassign import cancel_moving, log_dir_states

    parts, targets = prepared
    moving, results = cancel_moving(admin, [tp for tp, _ in parts])
    failed = [tp for tp in moving if results.get(tp) is not None]
    if failed:
        raise Refused(f"Error cancelling partition reassignment{_s(failed)} for:\n" + "\n".join(
            f"{_tp(tp)}: {_message(results[tp])}" for tp in failed))
    out.append(f"Successfully cancelled partition reassignment{_s(moving)} for: {','.join(map(_tp, moving))}\n"
               if moving else "None of the specified partition reassignments are active.\n")
    states = log_dir_states(admin, targets) if targets else {}
    if any(s and s.get("current") and s.get("future") for s in states.values()):
        raise Refused("kcli kafka-reassign-partitions cannot cancel moves between log dirs (AlterReplicaLogDirs)",
                      EXIT_FAILED, "stderr")
    out.append("None of the specified partition moves are active.")        # print, not println
    if not req.preserve_throttles:
        _clear(admin, parts, out)


def _list(admin, req, prepared, out: list[str], console: Console) -> None:
    import io

    from kcli.ops.reassign import ongoing
    from kcli.render.output import Output
    from kcli.render.reassign import render_list

    text = io.StringIO()
    render_list(Output("plain", text, text), ongoing(admin))
    out.append(text.getvalue())


_ACTIONS = {"generate": _generate, "execute": _execute, "verify": _verify, "cancel": _cancel, "list": _list}
