"""The design's layers, held by an AST scan of every import in ``kcli/`` (lazy imports inside
functions included). The scan fails closed: ``LAYERS`` says what each layer MAY import, and
anything else fails — an import of a layer or a third-party package not on the module's list, and
a module that no entry covers (a new top-level module or package needs its line here first).

Data flows ``cli`` -> ``ops`` -> ``admin``/``offsets``/``pipeline`` -> ``model`` -> ``render``:

- the foundation (``records``, ``model``, ``errors``, ``inputs``, ``times``, ``specs``, ``javaorder``,
  ``kip937``, ``ages``, ``redaction``, ``features``) imports only what is below it, never a client;
- the planner (``offsets``) is pure: the foundation and the standard library;
- ``render`` never talks to Kafka (no ``admin``, ``ops``, confluent-kafka), and is the only
  layer that draws with rich;
- ``admin`` is the one adapter to Kafka; ``ops`` calls it and the planner, and never the CLI,
  typer or rich;
- kcli's own client (``admin.wire``) never imports confluent-kafka or the rest of the adapter:
  which client sends a request is ``admin.client``'s choice (the rule in ``kcli/admin/__init__.py``);
- the broker and the client side share only ``kcli.protocol`` (the wire messages) and
  ``kcli.features`` (Kafka's feature versions);
- only ``kcli.cli`` uses typer, and it never imports confluent-kafka: the adapter does.

The standard library is allowed everywhere; a module may always import its own layer and the
root package ``kcli`` (which holds only the version). ``test_the_scan_*`` check the scan itself
against modules that break a rule, so it is known to work."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

KCLI = Path(__file__).resolve().parents[1] / "kcli"

FOUNDATION = ("kcli.datatypes", "kcli.model", "kcli.errors", "kcli.inputs", "kcli.times", "kcli.specs",
              "kcli.javaorder", "kcli.kip937", "kcli.ages", "kcli.redaction", "kcli.xdg", "kcli.features")

# layer (a module, or a package and everything under it) -> (kcli layers it may import,
# third-party distributions it may import, why)
LAYERS: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = {
    "kcli.datatypes": ((), (), "kcli's dataclass (datatype), below everything"),
    "kcli.model": (("kcli.datatypes",), (), "plain records shared by every layer"),
    "kcli.errors": (("kcli.datatypes",), (), "the error types and exit codes"),
    "kcli.redaction": ((), (), "the secret rule, pure"),
    "kcli.shipped": ((), (), "files shipped in the wheel"),
    "kcli.xdg": ((), (), "where kcli keeps its files (XDG base directories)"),
    "kcli.inputs": (("kcli.errors",), (), "input checks, pure"),
    "kcli.times": (("kcli.errors", "kcli.inputs"), ("dateutil",), "time and duration rules, pure"),
    "kcli.specs": (("kcli.datatypes", "kcli.model", "kcli.errors", "kcli.inputs", "kcli.times"), (),
                   "argument grammars, pure"),
    "kcli.javaorder": (("kcli.datatypes", "kcli.model"), (), "the Java tools' orderings, pure"),
    "kcli.kip937": (("kcli.model",), (), "the KIP-937 bound rule, pure"),
    "kcli.features": ((), (), "Kafka's feature versions (KIP-584), pure data: the broker's and kafka-features'"),
    "kcli.ages": (("kcli.model", "kcli.times", "kcli.kip937"), (), "the partition-age rule (KIP-1327 bounds), pure"),
    "kcli.protocol": (("kcli.xdg",), ("kafka",),
                      "the wire messages, shared by broker and client (compiled codecs cached by kcli.xdg)"),
    "kcli.offsets": (FOUNDATION, (), "the reset planner is pure: no Kafka, no views"),
    "kcli.render": (FOUNDATION + ("kcli.offsets",), ("rich",),
                    "views never talk to Kafka (no admin, ops, confluent-kafka)"),
    "kcli.admin": (FOUNDATION + ("kcli.protocol",), ("confluent_kafka", "kafka", "cryptography"),
                   "the adapter: no CLI, ops, views or broker"),
    "kcli.admin.wire": (FOUNDATION + ("kcli.protocol", "kcli.admin.settings"), ("kafka",),
                        "kcli's own client (base, metadata, offsets, coordinators, groups, group_offsets, "
                        "configs, produce; connection): kafka-python's protocol layer on its own connections, "
                        "never librdkafka nor the adapter that chooses between them (kcli.admin's rule)"),
    "kcli.ops": (FOUNDATION + ("kcli.admin", "kcli.offsets"), (),
                 "what a command does: adapter and planner, never the CLI, typer, rich or the broker"),
    "kcli.exporter": (FOUNDATION + ("kcli.ops",), ("prometheus_client", "yaml", "bcrypt"),
                      "kcli lag serve's HTTP side: the collector's snapshot as metric families, never Kafka"),
    "kcli.consumer": (FOUNDATION + ("kcli.admin",), ("confluent_kafka",),
                      "the consumer library: the adapter's settings and KIP reads"),
    "kcli.pipeline": (FOUNDATION + ("kcli.admin",), ("confluent_kafka", "pyspark", "pyarrow", "py4j"),
                      "the Spark jobs: the adapter, never the CLI or the views"),
    "kcli.profiles": (FOUNDATION + ("kcli.admin",), (), "profiles: client settings from files"),
    "kcli.broker": (("kcli.protocol", "kcli.features"), ("kafka",),
                    "the broker shares only the wire messages and Kafka's feature versions"),
    "kcli.cli": (FOUNDATION + ("kcli.admin", "kcli.ops", "kcli.offsets", "kcli.render", "kcli.pipeline",
                               "kcli.profiles", "kcli.shipped", "kcli.broker", "kcli.consumer",
                               "kcli.exporter"),
                 ("typer",), "commands parse, call and render; confluent-kafka only through the adapter"),
    "kcli.__main__": (("kcli.cli",), (), "python -m kcli runs the CLI"),
}
ROOT = "kcli"       # the package's __init__: the version, imports nothing (covered exactly, not as a prefix)
LAYERS_OF_ROOT = ((), (), "the root package holds only the version")


def module_name(path: Path) -> str:
    parts = path.relative_to(KCLI.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(source: str, module: str) -> set[str]:
    """Every module ``source`` imports, at any depth of the file, relative imports resolved
    (``from a import b`` yields ``a`` and ``a.b``: ``b`` may be a module or a name)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".")[: -node.level] if module else []
                base = ".".join(package + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def layer_of(module: str) -> str | None:
    """The ``LAYERS`` entry that covers ``module`` (the longest), ``ROOT`` for the root, or None."""
    if module == ROOT:
        return ROOT
    owners = [k for k in LAYERS if _within(module, k)]
    return max(owners, key=len) if owners else None


def _rule(layer: str):
    return LAYERS_OF_ROOT if layer == ROOT else LAYERS[layer]


def forbidden_imports(module: str, source: str) -> list[str]:
    """One line per import ``module`` may not make, or one line saying no rule covers it."""
    own = layer_of(module)
    if own is None:
        return [f"{module} is covered by no layer: add it to LAYERS in tests/test_architecture.py "
                f"with what it may import"]
    allowed, third_party, why = _rule(own)
    out = []
    for name in sorted(imports(source, module)):
        top = name.split(".")[0]
        if top != "kcli":
            if top not in sys.stdlib_module_names and top not in third_party:
                out.append(f"{module} imports {top}: third-party packages allowed in {own}: "
                           f"{', '.join(third_party) or 'none'} ({why})")
            continue
        target = layer_of(name)
        if name == ROOT or target == ROOT or _within(name, own) or _within(name, ROOT + ".__version__"):
            continue
        if target is None or not any(_within(name, a) for a in allowed):
            out.append(f"{module} imports {name}: kcli layers allowed in {own}: "
                       f"{', '.join(allowed) or 'none'} ({why})")
    # ``from kcli.admin.client import KafkaAdmin`` yields the module and the name: keep the module
    out = [line for line in out
           if not any(line != other and line.split(":")[0].startswith(other.split(":")[0] + ".")
                      for other in out)]
    return sorted(set(out))


def test_the_design_layers_hold():
    problems = []
    for path in sorted(KCLI.rglob("*.py")):
        problems += forbidden_imports(module_name(path), path.read_text(encoding="utf-8"))
    assert not problems, "\n".join(problems)


# The front ends call the library (kcli.ops), never the adapter: no ``admin.<method>(...)`` of
# the Admin interface in kcli/cli but close(), the lifetime of the client the command opened.
# The demo seeds its own embedded cluster through the adapter: it is no command's work.
ADAPTER_CALLS_ALLOWED = {"close"}
ADAPTER_CALLERS_ALLOWED = {"kcli.cli.demo"}


def admin_methods() -> set[str]:
    tree = ast.parse((KCLI / "admin" / "__init__.py").read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Admin")
    return {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}


def adapter_calls(module: str, source: str) -> list[str]:
    """``module``'s calls of an Admin method on an adapter (a name ``admin``, or ``x.admin()``)."""
    methods, out = admin_methods() - ADAPTER_CALLS_ALLOWED, []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in methods:
            target = node.func.value
            if ((isinstance(target, ast.Name) and target.id == "admin")
                    or (isinstance(target, ast.Call) and isinstance(target.func, ast.Attribute)
                        and target.func.attr == "admin")):
                out.append(f"{module}:{node.lineno}: calls the adapter's {node.func.attr}() "
                           "instead of a kcli.ops function")
    return out


def test_the_front_ends_call_the_adapter_only_through_ops():
    problems = []
    for path in sorted((KCLI / "cli").rglob("*.py")):
        if module_name(path) not in ADAPTER_CALLERS_ALLOWED:
            problems += adapter_calls(module_name(path), path.read_text(encoding="utf-8"))
    assert not problems, "\n".join(problems)


def test_the_adapter_call_scan_sees_one():
    assert adapter_calls("kcli.cli.x", "def f(admin):\n    admin.delete_groups(['g'])\n") == [
        "kcli.cli.x:2: calls the adapter's delete_groups() instead of a kcli.ops function"]
    assert adapter_calls("kcli.cli.x", "state().admin().describe_configs([])\n")
    assert not adapter_calls("kcli.cli.x", "admin.close()\nlib.delete_groups(admin, [])\n")


def test_every_layer_named_exists():
    """A rule for a module that is gone would hide a typo in a new one's name."""
    modules = {module_name(p) for p in KCLI.rglob("*.py")}
    for layer, (allowed, _, _) in LAYERS.items():
        for name in (layer, *allowed):
            assert any(_within(m, name) for m in modules), name


def test_the_scan_sees_a_broken_boundary():
    lazy = "def f():\n    from kcli.admin.client import KafkaAdmin\n"
    assert forbidden_imports("kcli.render.topics", lazy) == [
        "kcli.render.topics imports kcli.admin.client: kcli layers allowed in kcli.render: "
        + ", ".join(FOUNDATION + ("kcli.offsets",))
        + " (views never talk to Kafka (no admin, ops, confluent-kafka))"]
    assert forbidden_imports("kcli.cli.topics", "import confluent_kafka\n")
    assert forbidden_imports("kcli.cli.topics", "from rich.table import Table\n")
    assert forbidden_imports("kcli.broker.server", "from ..admin import wire\n")
    assert forbidden_imports("kcli.ops.groups", "from kcli.cli.context import state\n")
    assert forbidden_imports("kcli.ops.groups", "import typer\n")
    assert forbidden_imports("kcli.offsets.plan", "from kcli.admin import Admin\n")
    assert forbidden_imports("kcli.admin.wire.group_offsets", "from kcli.ops import resets\n")
    assert forbidden_imports("kcli.admin.wire.groups", "import confluent_kafka\n")
    assert forbidden_imports("kcli.admin.wire.base", "from kcli.admin.client import KafkaAdmin\n")
    assert not forbidden_imports("kcli.admin.wire.base", "from kcli.admin.settings import ClientSettings\n")
    assert forbidden_imports("kcli.model", "import kcli.times\n")
    assert not forbidden_imports("kcli.cli.topics", "from kcli.ops import topics\n")
    assert not forbidden_imports("kcli.ops.topics", "from kcli import __version__, javaorder\nimport json\n")


def test_the_scan_fails_closed_on_a_new_module():
    """A new module no layer covers fails however harmless its imports; one inside a layer is
    held to that layer's list."""
    assert forbidden_imports("kcli.newlayer", "import json\n") == [
        "kcli.newlayer is covered by no layer: add it to LAYERS in tests/test_architecture.py "
        "with what it may import"]
    assert forbidden_imports("kcli.render.newview", "from kcli.ops.resets import plan\n")
    assert forbidden_imports("kcli.offsets.newplanner", "import confluent_kafka\n")
    assert not forbidden_imports("kcli.offsets.newplanner", "from kcli.model import GroupPlan\n")
