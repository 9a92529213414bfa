"""kafka-features' execution (its grammar: ``kcli.cli.dropin.features``): describe (ApiVersions'
features), upgrade, downgrade and disable (UpdateFeatures, validate-only with --dry-run) on
``kcli.ops.features``, version-mapping and feature-dependencies from Kafka's tables
(``kcli.features``), each printed as FeatureCommand prints it (``kcli.render.features``). kcli
connects to brokers only: --bootstrap-controller is refused in one line, exit 1."""

from __future__ import annotations

from kcli.cli.dropin.common import Usage
from kcli.cli.dropin.run import Console, admin_for
from kcli.errors import EXIT_FAILED, EXIT_USAGE, KcliError


def execute(req, console: Console) -> int:
    from kcli import features as kf
    from kcli.render import features as view

    if req.command == "version-mapping":
        return _offline(console, lambda: iter(kf.version_mapping(req.get("release_version"))))
    if req.command == "feature-dependencies":
        return _offline(console, lambda: _dependencies([str(f) for f in req.get("feature")]))
    if req.get("bootstrap_controller") is not None:
        console.write("stderr", "kcli kafka-features connects to brokers only: give --bootstrap-server\n")
        return EXIT_FAILED
    from kcli.ops import features as lib

    dry_run = bool(req.get("dry_run"))
    try:
        with admin_for(req.bootstrap, req.command_config, console.timeout_ms, console) as admin:
            if req.command == "describe":
                console.write("stdout", view.describe(lib.describe(admin, req.get("node_id"))))
                return 0
            errors = lib.update(admin, req.updates, dry_run)
    except KcliError as exc:
        console.write("stderr", f"{exc.message}\n")
        return console.failed(exc)
    text, failures = view.update_results(req.command, {name: level for name, level, _ in req.updates}, errors,
                                         dry_run)
    console.write("stdout", text)
    if failures:
        console.write("stderr", f"{failures} out of {len(req.updates)} operation(s) failed.\n")
        return EXIT_FAILED
    return 0


def _dependencies(texts: list[str]):
    from kcli import features as kf
    from kcli.cli.dropin.features import name_and_level

    for text in texts:
        yield from kf.dependency_lines(*name_and_level(text))


def _offline(console: Console, lines) -> int:
    """A command on Kafka's tables alone: its lines, up to the first bad input, whose message
    ends it (exit 2)."""
    out: list[str] = []
    try:
        for line in lines():
            out.append(line)
    except (Usage, ValueError) as exc:
        console.write("stdout", "".join(out))
        console.write("stderr", f"{exc.message if isinstance(exc, Usage) else exc}\n")
        return EXIT_USAGE
    console.write("stdout", "".join(out))
    return 0
