"""kcli lag serve: a Prometheus exporter of exact lag, in offsets and in time (docs/lag-service.md);
kcli lag show (kcli lag [GROUP]...): the same numbers at the shell, rolled up and filtered. The
collector is kcli.ops.lag_service, the HTTP side kcli.exporter, the view kcli.render.lag; serve
parses, binds, starts both and waits for SIGTERM or SIGINT."""

from __future__ import annotations

import signal
import threading
from typing import List, Optional

import typer

from kcli.cli.params import Bounded
from kcli.errors import OperationError, UsageError
from kcli.inputs import INT64_MAX, shown


def serve(
    listen: str = typer.Option("127.0.0.1:8000", "--listen",
                               help="HOST:PORT to serve /metrics and /healthz on (8000: kafka-lag-exporter's port; "
                                    "0: any free port). Group and topic names are readable by whoever reaches it: "
                                    "keep it on loopback or a private network."),
    interval: str = typer.Option("30s", "--interval",
                                 help="Time between collections: 30s, 500ms, PT1M; a bare number is milliseconds. "
                                      "Each collection is bounded by --timeout."),
    group: Optional[List[str]] = typer.Option(None, "--group", "-g", metavar="REGEX",
                                              help="Only groups whose id this regex matches whole (repeatable; "
                                                   "default every group)."),
    topic: Optional[List[str]] = typer.Option(None, "--topic", "-t", metavar="REGEX",
                                              help="Only partitions of topics this regex matches whole (repeatable; "
                                                   "default every topic)."),
    exclude_group: Optional[List[str]] = typer.Option(None, "--exclude-group", metavar="REGEX",
                                                      help="Leave out groups whose id this regex matches whole "
                                                           "(repeatable)."),
    cluster_name: Optional[str] = typer.Option(None, "--cluster-name",
                                               help="The cluster_name label (default: the cluster id)."),
    granularity: str = typer.Option("partition", "--granularity",
                                    help="partition: every series; topic: none per partition (for large clusters); "
                                         "group: none per topic either."),
    tls_cert_file: Optional[str] = typer.Option(None, "--tls-cert-file",
                                                help="Serve HTTPS with this PEM certificate (chain); with "
                                                     "--tls-key-file."),
    tls_key_file: Optional[str] = typer.Option(None, "--tls-key-file", help="The certificate's PEM private key."),
    basic_auth_user: Optional[str] = typer.Option(None, "--basic-auth-user",
                                                  help="Require HTTP basic authentication as this user (every path); "
                                                       "with --basic-auth-password-file."),
    basic_auth_password_file: Optional[str] = typer.Option(None, "--basic-auth-password-file",
                                                           help="A file holding the user's password (its first "
                                                                "line), as Prometheus' basic_auth.password_file."),
    web_config_file: Optional[str] = typer.Option(None, "--web-config-file", metavar="FILE",
                                                  help="TLS and basic auth from a web configuration file as "
                                                       "Prometheus and its exporters read it (--web.config.file: "
                                                       "tls_server_config, bcrypt basic_auth_users); instead of the "
                                                       "--tls-* and --basic-auth-* options."),
    expansion_within: str = typer.Option("24h", "--expansion-within", metavar="D",
                                         help="The expansion radar's window (kcli check expansions --within): "
                                              "partitions created in it are checked each collection; 0 turns the "
                                              "radar off."),
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
    if granularity not in exporter.GRANULARITIES:
        raise UsageError(f"Invalid --granularity '{shown(granularity)}': use one of "
                         f"{', '.join(exporter.GRANULARITIES)}")
    if cluster_name == "":
        raise UsageError("--cluster-name cannot be empty")
    radar_ms = lag_service.radar_window(expansion_within)
    tls, allowed = exporter.web_access(tls_cert_file, tls_key_file, basic_auth_user, basic_auth_password_file,
                                       web_config_file)
    st = state()
    o = out()                  # the collector's thread writes its warnings outside click's context
    collector = lag_service.Collector(st.settings, chosen, interval_ms / 1000, cluster_name, o.note,
                                      secrets=st.secrets, expansion_within_ms=radar_ms)
    server = exporter.bind(host, port, exporter.app(collector, granularity, allowed), tls)
    exporter.serve(server, collector, _stop_on_signals(), lambda url: print(f"listening: {url}", flush=True))


def _stop_on_signals() -> threading.Event:
    """An event SIGTERM and SIGINT set (instead of ending the process): serve and --watch stop
    at it, exit 0."""
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    return stop


def show(
    groups: Optional[List[str]] = typer.Argument(None, metavar="[GROUP]...", help="Group ids (default: every group)."),
    group: Optional[List[str]] = typer.Option(None, "--group", "-g", metavar="GROUP",
                                              help="The same as a GROUP argument (repeatable)."),
    topic: Optional[List[str]] = typer.Option(None, "--topic", "-t", metavar="REGEX",
                                              help="Only partitions of topics this regex matches whole (repeatable)."),
    by: str = typer.Option("group", "--by",
                           help="One line per group, per group and topic, or per partition: group, topic or "
                                "partition."),
    min_lag: Optional[int] = typer.Option(None, "--min-lag", click_type=Bounded(0, INT64_MAX),
                                          help="Only lines whose lag (summed) is at least N records."),
    min_time_lag: Optional[str] = typer.Option(None, "--min-time-lag",
                                               help="Only lines whose lag in time is at least this: 5m, PT30S; a "
                                                    "bare number is milliseconds."),
    sort: str = typer.Option("name", "--sort",
                             help="name (group, topic, partition), lag or time-lag (the largest first)."),
    watch: Optional[str] = typer.Option(None, "--watch", metavar="[D]",
                                        help="Redraw every D (default 5s) until Ctrl-C, with a TREND column: the "
                                             "time lag's last samples as a sparkline. Give it after the groups, or "
                                             "with its D."),
):
    """The lag of groups in offsets and in time, as kcli lag serve exports it, rolled up and filtered
    (kcli lag [GROUP]... for short).

    The time lag is now minus the timestamp of the next record the group will read: exact, `≥` a
    lower bound, negative when that record is stamped after now."""
    import re
    import time

    from kcli.cli.context import out, state
    from kcli.ops import lag_service
    from kcli.ops.failures import raise_refusals
    from kcli.ops.lag import RecordTimeCache
    from kcli.render.lag import render_lag
    from kcli.specs import duration_arg

    if by not in lag_service.BY:
        raise UsageError(f"Invalid --by '{shown(by)}': use one of {', '.join(lag_service.BY)}")
    if sort not in lag_service.SORTS:
        raise UsageError(f"Invalid --sort '{shown(sort)}': use one of {', '.join(lag_service.SORTS)}")
    min_time_lag_ms = duration_arg("--min-time-lag", min_time_lag) if min_time_lag is not None else None
    every_ms = duration_arg("--watch", watch) if watch else 5000
    if not 100 <= every_ms <= 86_400_000:
        raise UsageError(f"--watch: '{shown(watch or '')}' is out of range: from 100 ms to 1 day")
    ids = [*(groups or []), *(group or [])]
    if "" in ids:
        raise UsageError("A group id cannot be empty")
    chosen = lag_service.selection([re.escape(g) for g in ids], topic or [], [])
    if watch is not None:
        _watch(chosen, every_ms, by, min_lag, min_time_lag_ms, sort)
        return
    admin = state().admin()
    snap = lag_service.collect(admin, chosen, RecordTimeCache(), int(time.time() * 1000), "")
    missing, refusals = lag_service.unlisted(admin, ids, snap)
    if missing:                               # as describe groups: a missing group fails the command
        raise OperationError(f"Group {missing[0]} not found.")
    if not refusals or len(refusals) < len(ids):
        if out().format != "json":
            out().notes(snap.notes)
        render_lag(out(), lag_service.rollup(snap.groups, by, min_lag, min_time_lag_ms, sort), by)
    raise_refusals(len(ids), refusals)        # named once the others are shown (exit 3)


CLEAR = "\x1b[H\x1b[2J"          # cursor home, erase the screen: a redraw in place on a terminal


def _watch(chosen, every_ms: int, by: str, min_lag: int | None, min_time_lag_ms: int | None, sort: str) -> None:
    """kcli lag show --watch: a collection every ``every_ms`` (each bounded by --timeout, its
    timestamps cached), the view redrawn in place on a terminal (appended off one), until
    SIGINT or SIGTERM (exit 0). A failed collection shows its reason instead of the lines."""
    import time

    from kcli.cli.context import out, state
    from kcli.ops import lag_service
    from kcli.render.lag import render_lag
    from kcli.times import format_duration_ms, format_ms

    o = out()
    collector = lag_service.Collector(state().settings, chosen, every_ms / 1000, secrets=state().secrets)
    trends = lag_service.Trends()
    stop = _stop_on_signals()
    redraw = o.format in ("table", "plain") and o.stdout.isatty()
    while not stop.is_set():
        collector.collect_once()
        if redraw:
            o.write(CLEAR)
        if o.format in ("table", "plain"):
            o.line(f"Every {format_duration_ms(every_ms)}: kcli lag, at {format_ms(int(time.time() * 1000))}")
        snap, health = collector.last
        if snap is None:
            o.line(health.reason())
        else:
            lines = lag_service.rollup(snap.groups, by, min_lag, min_time_lag_ms, sort)
            render_lag(o, lines, by, trends.add(lines))
        o.stdout.flush()
        stop.wait(every_ms / 1000)
    collector.close()
