"""kafka-topics' execution (its grammar: ``kcli.cli.dropin.topics``): kcli's topic operations
and plain views; an error is the tool's line on stdout."""

from __future__ import annotations

from kcli.cli.dropin import jopt
from kcli.cli.dropin.run import Console, admin_for, plain_output
from kcli.errors import EXIT_USAGE, KcliError

TOPIC_ERROR = "Error while executing topic command : "


def execute(req, console: Console) -> int:
    p = req.parsed
    try:
        values = {name: p.value(name) for name in ("topic", "topic-id", "partitions", "replication-factor",
                                                   "replica-assignment", "command-config",
                                                   "partition-size-limit-per-response")}
        values["config"] = p.values("config")
    except jopt.JoptError as exc:
        console.write("stdout", f"{TOPIC_ERROR}{exc}\n")
        return EXIT_USAGE
    try:
        with admin_for(req.bootstrap, values["command-config"], console.timeout_ms, console) as admin:
            _topic_action(req.action, p, values, admin, plain_output(console))
    except KcliError as exc:
        console.write("stdout", f"{TOPIC_ERROR}{exc.message}\n")
        return console.failed(exc)
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
            pairs, summaries = lib.describe(admin, patterns, say_refusals=False, **_reports(p))
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
