"""kafka-get-offsets' execution (its grammar: ``kcli.cli.dropin.offsets``): kcli's list-offsets
and its plain view; an error is the tool's line on stderr."""

from __future__ import annotations

from kcli.cli.dropin import jopt
from kcli.cli.dropin.run import Console, admin_for, plain_output
from kcli.errors import EXIT_USAGE, KcliError, UsageError
from kcli.inputs import printable

OFFSETS_ERROR = "Error occurred: "


def execute(req, console: Console) -> int:
    from kcli import specs
    from kcli.ops import list_offsets as lib

    p = req.parsed
    try:
        topic, partitions, topic_partitions = p.value("topic"), p.value("partitions"), p.value("topic-partitions")
        if topic_partitions is not None and (topic is not None or partitions is not None):
            raise UsageError("--topic-partitions cannot be used with --topic or --partitions")
        time_value = p.value("time")
        if time_value not in specs.NAMED_TIMES and not _is_long(time_value):
            raise UsageError(f"Malformed time argument {printable(time_value)}. Please use -1 or latest / -2 or "
                             "earliest / -3 or max-timestamp / -4 or earliest-local / -5 or latest-tiered / -6 or "
                             "earliest-pending-upload, or a specified long format timestamp")
        when = specs.NAMED_TIMES.get(time_value)
        if when is None:          # a timestamp: from the epoch on (never one of the special values)
            when = specs.parse_time(time_value)

        try:
            rules = specs.partition_rules([topic] if topic is not None else [], partitions, topic_partitions)
        except specs.InvalidRule as exc:
            raise UsageError(f"org.apache.kafka.tools.TerseException: {exc.message}") from None
    except UsageError as exc:
        console.write("stderr", f"{OFFSETS_ERROR}{exc.message}\n")
        return EXIT_USAGE
    out = plain_output(console)
    try:
        with admin_for(req.bootstrap, p.value("command-config"), console.timeout_ms, console) as admin:
            offsets = lib.list_offsets(admin, rules, when, p.has("exclude-internal-topics"))
    except KcliError as exc:
        console.write("stderr", f"{OFFSETS_ERROR}{exc.message}\n")
        return console.failed(exc)
    from kcli.render.offsets import render_offsets

    render_offsets(out, offsets, time_value)
    return 1 if any(o.error for o in offsets) else 0


def _is_long(text: str) -> bool:
    return jopt.java_integer(text, "Long") is not None
