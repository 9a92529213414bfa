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
                               help="HOST:PORT of the first node; further nodes take the next ports. Any address but "
                                    "loopback (127.0.0.1, ::1, localhost) needs users (--user, --users-file) or "
                                    "--insecure. Each node advertises its address, so 0.0.0.0 and :: are refused."),
    nodes: int = typer.Option(1, "--nodes", click_type=Bounded(INT64_MIN, INT64_MAX),
                              help="Number of node ids (each its own port)."),
    data_dir: Optional[str] = typer.Option(None, "--data-dir",
                                           help="Keep logs, offsets, creation times and configs here (in memory "
                                                "otherwise)."),
    config: Optional[List[str]] = typer.Option(None, "--config", help="Broker config key=value (repeatable)."),
    pose_as: Optional[str] = typer.Option(None, "--pose-as",
                                          help="Withhold the KIP API versions, as an older broker (4.4, 4.1 or 2.8)."),
    user: Optional[List[str]] = typer.Option(None, "--user", metavar="NAME:PASSWORD",
                                             help="A SASL user (repeatable): every listener then takes SASL "
                                                  "(PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) and only, and the "
                                                  "authorizer serves what ACLs allow."),
    users_file: Optional[str] = typer.Option(None, "--users-file",
                                             help="SASL users, one NAME:PASSWORD a line (# comments)."),
    super_user: Optional[List[str]] = typer.Option(
        None, "--super-user", metavar="NAME",
        help="A user every ACL check allows (repeatable); kept with --data-dir, where a start without "
             "--super-user keeps the last ones."),
    unsecured_oauthbearer: bool = typer.Option(
        False, "--unsecured-oauthbearer",
        help="Offer SASL/OAUTHBEARER too, with Kafka's default unsecured validator: an unsigned JWT's 'sub' is "
             "the principal (for tests: anyone may log in as anyone); turns on the authorizer."),
    tls_cert: Optional[str] = typer.Option(None, "--tls-cert",
                                           help="PEM certificate (chain) of a TLS listener (with --tls-key)."),
    tls_key: Optional[str] = typer.Option(None, "--tls-key", help="PEM private key of --tls-cert."),
    insecure: bool = typer.Option(False, "--insecure",
                                  help="Serve a non-loopback --listen without users: anyone who reaches it "
                                       "may read, write and delete every topic."),
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
    from kcli.specs import parse_users

    users = parse_users(user or [], users_file)
    if super_user and not users and not unsecured_oauthbearer:
        raise UsageError("--super-user needs users (--user or --users-file): without them there is no authorizer")
    from kcli.broker.embedded import exposure_warning

    if exposure_warning(host) and not users and not insecure:
        raise UsageError(f"--listen {shown(host)} is not a loopback address: give users (--user, --users-file) "
                         "so that clients must authenticate, or --insecure to serve anyone who reaches it")
    if (tls_cert is None) != (tls_key is None):
        raise UsageError("--tls-cert and --tls-key go together")
    tls = None
    if tls_cert is not None and tls_key is not None:
        import ssl

        from kcli.broker.server import tls_context

        try:
            tls = tls_context((tls_cert, tls_key))
        except (OSError, ssl.SSLError) as e:
            raise UsageError(f"Cannot load --tls-cert/--tls-key: {getattr(e, 'strerror', None) or e}") from None
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
                ready_callback=ready, sasl_users=users or None, super_users=super_user or [], tls=tls,
                unsecured_oauthbearer=unsecured_oauthbearer)


def demo() -> None:
    """Play the partition-expansion story on a 3-node embedded broker and show every KIP feature."""
    from kcli.cli.demo import run

    raise typer.Exit(run())
