"""kafka-cluster's execution (its grammar: ``kcli.cli.dropin.cluster``): each command on kcli's
operations (``kcli.ops.cluster``), printed as ClusterTool prints it (``kcli.render.cluster_tool``);
a refusal is its exception's line on stderr, exit 1 (the Java tool adds a stack trace).
--bootstrap-controller is refused (exit 2): kcli connects to brokers only."""

from __future__ import annotations

from kcli.cli.dropin.run import Console, admin_for
from kcli.errors import EXIT_FAILED, EXIT_USAGE, KcliError, UnsupportedByBroker

NO_CONTROLLERS = ("kcli kafka-cluster: --bootstrap-controller is not supported (kcli connects to brokers only): "
                  "give --bootstrap-server")


def execute(req, console: Console) -> int:
    from kcli.ops import cluster as lib
    from kcli.render import cluster_tool as view
    from kcli.render.javatext import exception_with

    if req.controllers is not None:
        console.write("stderr", NO_CONTROLLERS + "\n")
        return EXIT_USAGE
    out = []
    try:
        with admin_for(req.bootstrap, req.command_config, console.timeout_ms, console) as admin:
            if req.command == "cluster-id":
                cluster_id = lib.describe(admin).cluster_id
                out.append(f"Cluster ID: {cluster_id}\n" if cluster_id is not None
                           else "No cluster ID found. The Kafka version is probably too old.\n")
            elif req.command == "list-endpoints":
                out.append(view.endpoints(lib.brokers(admin, req.include_fenced)))
            elif req.command == "api-versions":
                out += [f"{view.node_text(b)} -> {view.api_versions(r)}\n" for b, r in lib.node_api_versions(admin)]
            else:
                kind = "broker" if req.command == "unregister" else "controller"
                try:
                    error = lib.unregister(admin, kind, req.node_id)
                except UnsupportedByBroker:
                    out.append(f"The target cluster does not support the {kind} unregistration API.\n")
                else:
                    if error is not None:
                        console.write("stderr", exception_with(error.code, error.message,
                                                               f"{error.name}: {error.message}") + "\n")
                        return EXIT_FAILED
                    out.append(f"{kind.capitalize()} {req.node_id} is no longer registered.\n")
    except KcliError as exc:
        console.write("stderr", f"Error: {exc.message}\n")
        return console.failed(exc)
    console.write("stdout", "".join(out))
    return 0
