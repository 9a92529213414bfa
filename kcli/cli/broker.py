"""kcli broker start: the embedded Kafka-protocol broker."""

from __future__ import annotations

import json
from typing import List, Optional

import typer

from kcli.cli.params import Bounded
from kcli.errors import UsageError
from kcli.inputs import INT64_MAX, INT64_MIN, parse_int, shown

LOG_LEVELS = ("error", "warning", "info", "debug")


def start(
    listen: str = typer.Option("127.0.0.1:9092", "--listen",
                               help="HOST:PORT of the first node; further nodes take the next ports. The broker has "
                                    "no authorization: any address but loopback (127.0.0.1, ::1, localhost) gets a "
                                    "warning. Each node advertises its address, so 0.0.0.0 and :: are refused."),
    nodes: int = typer.Option(1, "--nodes", click_type=Bounded(INT64_MIN, INT64_MAX),
                              help="Number of node ids (each its own port)."),
    data_dir: Optional[str] = typer.Option(None, "--data-dir",
                                           help="Keep logs, offsets, creation times and configs here (in memory "
                                                "otherwise)."),
    config: Optional[List[str]] = typer.Option(None, "--config", help="Broker config key=value (repeatable)."),
    pose_as: Optional[str] = typer.Option(None, "--pose-as",
                                          help="Withhold the KIP API versions, as an older broker (4.4, 4.1 or 2.8)."),
    log_level: str = typer.Option("warning", "--log-level",
                                  help="What the broker logs on stderr: error, warning, info (each connection it "
                                       "closes and why: an API or version it does not serve, a request it cannot "
                                       "decode) or debug."),
):
    """Serve the Kafka protocol until SIGINT/SIGTERM. Prints `bootstrap: host:port,...` when ready."""
    host, _, port = listen.rpartition(":")
    try:
        if not (host and port.isascii() and port.isdigit()):
            raise ValueError(port)
        first = parse_int(port, 0, 65535)
    except ValueError:
        raise UsageError(f"Invalid --listen '{shown(listen)}': expected HOST:PORT (port 0 to 65535)") from None
    from kcli.broker.embedded import unadvertisable

    if reason := unadvertisable(host):
        raise UsageError(f"Invalid --listen '{shown(listen)}': {reason}")
    if not 1 <= nodes <= 65535 or (first and first + nodes - 1 > 65535):
        raise UsageError(f"--nodes must be from 1 to {65536 - (first or 1)}: each node takes the next port")
    if log_level.lower() not in LOG_LEVELS:
        raise UsageError(f"--log-level must be one of {', '.join(LOG_LEVELS)}, not '{shown(log_level)}'")
    import logging

    handler = logging.StreamHandler()             # stderr
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    broker_log = logging.getLogger("kcli.broker")
    broker_log.addHandler(handler)
    broker_log.setLevel(log_level.upper())
    from kcli.specs import parse_config_pairs
    from kcli.broker import run_forever
    from kcli.cli.context import out
    from kcli.render.output import json_document

    o = out()      # the ready callback may run on the broker's thread, outside click's context

    def ready(bootstrap: str) -> None:
        if o.format == "json":
            o.line(json.dumps(json_document("broker", bootstrap=bootstrap, nodes=nodes)))  # one line
            o.stdout.flush()
        else:
            print(f"bootstrap: {bootstrap}", flush=True)

    run_forever(listen=f"{host}:{port}", nodes=nodes, data_dir=data_dir,
                configs=parse_config_pairs(config or [], "broker config"), pose_as=pose_as,
                ready_callback=ready)


def demo() -> None:
    """Play the partition-expansion story on a 3-node embedded broker and show every KIP feature."""
    from kcli.cli.demo import run

    raise typer.Exit(run())
