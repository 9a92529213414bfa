"""kafka-configs' execution (its grammar: ``kcli.cli.dropin.configs``): kcli's config operations
and plain views; an error is one line on stderr."""

from __future__ import annotations

from kcli.cli.dropin import jopt
from kcli.cli.dropin.run import Console, admin_for, plain_output
from kcli.errors import EXIT_USAGE, KcliError, UsageError

def execute(req, console: Console) -> int:
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
        console.write("stderr", f"{getattr(exc, 'message', exc)}\n")
        return EXIT_USAGE
    quotas = req.entity_type in ("users", "clients", "ips")
    if quotas and req.action == "alter":
        from kcli.ops.quotas import tool_check_keys

        try:
            values = tool_check_keys(list(req.types), adds, deletes)
        except UsageError as exc:
            console.write("stderr", f"{exc.message}\n")
            return EXIT_USAGE
    out = plain_output(console)
    try:
        with admin_for(req.bootstrap, command_config, console.timeout_ms, console) as admin:
            if quotas and req.action == "describe":
                _describe_quotas(admin, out, req)
                return 0
            if req.action == "alter":
                if quotas:
                    from kcli.ops.quotas import tool_alter

                    tool_alter(admin, list(req.types), list(req.names), values, deletes)
                else:
                    from kcli.ops.configs import alter

                    alter(admin, rtype, req.entity_name, adds, deletes)
                if req.entity_name:
                    out.line(f"Completed updating config for {req.entity_type[:-1]} {req.entity_name}.")
                else:
                    out.line(f"Completed updating default config for {req.entity_type} in the cluster.")
                return 0
            _describe_configs(admin, out, req, rtype, p.has("all"))
    except KcliError as exc:
        console.write("stderr", f"{exc.message}\n")
        return console.failed(exc)
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


def _describe_quotas(admin, out, req) -> None:
    """ConfigCommand.describeQuotaConfigs' lines (kcli shows no SCRAM credentials: docs/dropins.md)."""
    from kcli.javaorder import quota_entities
    from kcli.ops.quotas import tool_describe
    from kcli.render.quotas import plain_tool_quotas

    found = tool_describe(admin, list(req.types), list(req.names))
    for line in plain_tool_quotas(quota_entities(found, lambda e: e.parts)):
        out.line(line)
