"""describe/alter client quotas of users, client ids and IPs (kafka-configs --entity-type
users|clients|ips)."""

from __future__ import annotations

from typing import List, Optional

import typer

from kcli.cli.context import out, state

USER = typer.Option(None, "--user", help="A user principal's quotas.")
USER_DEFAULT = typer.Option(False, "--user-default", help="The default quotas of users.")
CLIENT = typer.Option(None, "--client", help="A client id's quotas (with --user: that user's client).")
CLIENT_DEFAULT = typer.Option(False, "--client-default", help="The default quotas of client ids.")
IP = typer.Option(None, "--ip", help="An IP address's connection quota.")
IP_DEFAULT = typer.Option(False, "--ip-default", help="The default connection quota of IPs.")


def describe_quotas(user: Optional[str] = USER, user_default: bool = USER_DEFAULT,
                    client: Optional[str] = CLIENT, client_default: bool = CLIENT_DEFAULT,
                    ip: Optional[str] = IP, ip_default: bool = IP_DEFAULT):
    """Client quotas: every entity's, or those that include the named user, client id or IP."""
    from kcli.ops import quotas as lib
    from kcli.render.quotas import render_quotas

    parts = lib.entity(user, user_default, client, client_default, ip, ip_default)
    render_quotas(out(), lib.describe(state().admin(), parts))


def alter_quotas(user: Optional[str] = USER, user_default: bool = USER_DEFAULT,
                 client: Optional[str] = CLIENT, client_default: bool = CLIENT_DEFAULT,
                 ip: Optional[str] = IP, ip_default: bool = IP_DEFAULT,
                 set_: Optional[List[str]] = typer.Option(None, "--set",
                     help="key=value[,key=value] (repeatable): producer_byte_rate, consumer_byte_rate, "
                          "request_percentage, controller_mutation_rate; connection_creation_rate for --ip."),
                 delete: Optional[List[str]] = typer.Option(None, "--delete", help="key[,key] to remove (repeatable)."),
                 execute: bool = typer.Option(False, "--execute",
                     help="Apply the change (default: the broker validates it only).")):
    """Set or remove one entity's client quotas; a dry run (validated by the broker) unless
    --execute."""
    from kcli.ops import quotas as lib
    from kcli.render.quotas import render_altered

    parts = lib.entity(user, user_default, client, client_default, ip, ip_default)
    values = lib.parse_quotas(set_ or [], parts)
    removed = lib.parse_removed(delete or [], parts)
    lib.alter(state().admin(), parts, values, removed, execute)
    render_altered(out(), parts, values, removed, execute)
