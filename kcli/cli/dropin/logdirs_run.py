"""kafka-log-dirs' execution (its grammar: ``kcli.cli.dropin.logdirs``): the live brokers, a
broker of --broker-list that is not one refused in the tool's words (exit 1, before
DescribeLogDirs), then DescribeLogDirs to each broker asked and the tool's three lines: the
JSON in the tool's key and list orders (``kcli.render.logdirs.render_dropin``)."""

from __future__ import annotations

from kcli.cli.dropin.run import Console, admin_for
from kcli.errors import EXIT_FAILED, KcliError


def execute(req, console: Console) -> int:
    from kcli import javaorder
    from kcli.ops import logdirs as lib
    from kcli.render.logdirs import render_dropin

    try:
        with admin_for(req.bootstrap, req.command_config, console.timeout_ms, console) as admin:
            live = javaorder.integers(lib.live_brokers(admin))                   # Collectors.toSet()
            given = javaorder.integers(req.brokers)
            missing = [b for b in given if b not in live]
            if missing:
                console.write("stderr", "ERROR: The given brokers do not exist from --broker-list: "
                              f"{','.join(map(str, missing))}. Current existent brokers: {','.join(map(str, live))}\n")
                return EXIT_FAILED
            asked = [b for b in (given or live) if b in live]
            asked = javaorder.integers(asked, javaorder.hash_set_copy(len(given or live)))
            console.write("stdout", "Querying brokers for log directories information\n")
            dirs = lib.log_dirs(admin, asked)
    except KcliError as exc:
        console.write("stderr", f"Error: {exc.message}\n")
        return console.failed(exc)
    console.write("stdout", f"Received log directory information from brokers {','.join(map(str, asked))}\n")
    console.write("stdout", render_dropin(javaorder.integers(asked, len(asked)), dirs, req.topics))
    return 0
