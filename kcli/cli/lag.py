"""kcli lag serve: a Prometheus exporter of exact lag, in offsets and in time (docs/lag-service.md).
The collector is kcli.ops.lag_service, the HTTP side kcli.exporter; this module parses, binds,
starts both and waits for SIGTERM or SIGINT."""

from __future__ import annotations

import signal
import threading
from typing import List, Optional

import typer

from kcli.errors import UsageError
from kcli.inputs import shown


def serve(
    listen: str = typer.Option("127.0.0.1:8000", "--listen", help="HOST:PORT to serve /metrics and /healthz on (8000: kafka-lag-exporter's port; 0: any free port). Group and topic names are readable by whoever reaches it: keep it on loopback or a private network."),
    interval: str = typer.Option("30s", "--interval", help="Time between collections: 30s, 500ms, PT1M; a bare number is milliseconds. Each collection is bounded by --timeout."),
    group: Optional[List[str]] = typer.Option(None, "--group", "-g", metavar="REGEX", help="Only groups whose id this regex matches whole (repeatable; default every group)."),
    topic: Optional[List[str]] = typer.Option(None, "--topic", "-t", metavar="REGEX", help="Only partitions of topics this regex matches whole (repeatable; default every topic)."),
    exclude_group: Optional[List[str]] = typer.Option(None, "--exclude-group", metavar="REGEX", help="Leave out groups whose id this regex matches whole (repeatable)."),
    cluster_name: Optional[str] = typer.Option(None, "--cluster-name", help="The cluster_name label (default: the cluster id)."),
):
    """Export lag in offsets and exact lag in time to Prometheus until SIGTERM or SIGINT (exit 0).

    Collects every --interval in the background (a scrape never calls Kafka) and serves
    /metrics (kafka-lag-exporter's names and labels, and kcli_* ones) and /healthz (503 until
    the first collection, and after 3 failed in a row, with the reason). A failed collection's
    lag series are dropped, never served as fresh. Prints `listening: http://HOST:PORT` when ready."""
    from kcli import exporter
    from kcli.cli.context import out, state
    from kcli.ops import lag_service
    from kcli.specs import duration_arg

    interval_ms = duration_arg("--interval", interval)
    if not 1 <= interval_ms <= 86_400_000:
        raise UsageError(f"--interval: '{shown(interval)}' is out of range: from 1 ms to 1 day")
    host, port = exporter.parse_listen(listen)
    chosen = lag_service.selection(group or [], topic or [], exclude_group or [])
    if cluster_name == "":
        raise UsageError("--cluster-name cannot be empty")
    st = state()
    o = out()                  # the collector's thread writes its warnings outside click's context
    collector = lag_service.Collector(st.settings, chosen, interval_ms / 1000, cluster_name, o.note)
    server = exporter.bind(host, port, exporter.app(collector))
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    bound_host, bound_port = server.server_address[:2]
    shown_host = f"[{bound_host}]" if ":" in bound_host else bound_host
    collector.start()
    web = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                           name="kcli-lag-http", daemon=True)
    web.start()
    print(f"listening: http://{shown_host}:{bound_port}", flush=True)
    while not stop.wait(0.1):
        pass
    server.shutdown()
    server.server_close()
    collector.stop()
