"""The design's boundaries, held by an AST scan of every import in ``kcli/`` (lazy imports inside
functions included): data flows cli -> ops -> admin/offsets/pipeline -> model -> render, and

- render, the planner (``kcli.offsets``) and the model never import the adapter (``kcli.admin``);
- the library (everything but ``kcli.cli``) never imports the CLI;
- the broker shares no code with the client side, and the client side none with the broker
  (only ``kcli.protocol``, the wire messages, is common);
- no confluent-kafka import under ``kcli/cli/`` or ``kcli/render/``.

``forbidden_imports`` is also checked against a module that breaks a rule, so the scan itself is
known to work."""

from __future__ import annotations

import ast
from pathlib import Path

KCLI = Path(__file__).resolve().parents[1] / "kcli"

# (modules the rule applies to, imports they may not make, why)
RULES = [
    (("kcli.render", "kcli.offsets", "kcli.model"), ("kcli.admin", "kcli.ops"),
     "render, the planner and the model do not talk to Kafka"),
    (("kcli.admin", "kcli.ops", "kcli.offsets", "kcli.render", "kcli.model", "kcli.pipeline",
      "kcli.consumer", "kcli.broker", "kcli.protocol", "kcli.times", "kcli.specs", "kcli.kip937",
      "kcli.javaorder", "kcli.errors", "kcli.profiles"), ("kcli.cli",),
     "the library never imports the CLI"),
    (("kcli.broker",), ("kcli.admin", "kcli.ops", "kcli.offsets", "kcli.render", "kcli.cli",
                        "kcli.consumer", "kcli.pipeline", "kcli.specs", "kcli.kip937"),
     "the broker shares no code with the client side"),
    (("kcli.admin", "kcli.ops", "kcli.offsets", "kcli.render", "kcli.model", "kcli.consumer",
      "kcli.pipeline", "kcli.specs", "kcli.kip937"), ("kcli.broker",),
     "the client side shares no code with the broker"),
    (("kcli.cli", "kcli.render"), ("confluent_kafka",),
     "commands and views never call confluent-kafka: the adapter does"),
]


def module_name(path: Path) -> str:
    parts = path.relative_to(KCLI.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(source: str, module: str) -> set[str]:
    """Every module ``source`` imports, at any depth of the file, relative imports resolved."""
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


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def forbidden_imports(module: str, source: str) -> list[str]:
    out = []
    for owners, banned, why in RULES:
        if _within(module, owners):
            hits = sorted(n for n in imports(source, module) if _within(n, banned))
            out += [f"{module} imports {name}: {why}" for name in hits
                    if not any(name.startswith(h + ".") for h in hits)]      # one line per import
    return out


def test_the_design_boundaries_hold():
    problems = []
    for path in sorted(KCLI.rglob("*.py")):
        problems += forbidden_imports(module_name(path), path.read_text(encoding="utf-8"))
    assert not problems, "\n".join(problems)


def test_the_scan_sees_a_broken_boundary():
    lazy = "def f():\n    from kcli.admin.client import KafkaAdmin\n"
    assert forbidden_imports("kcli.render.topics", lazy) == [
        "kcli.render.topics imports kcli.admin.client: render, the planner and the model do not "
        "talk to Kafka"]
    assert forbidden_imports("kcli.cli.topics", "import confluent_kafka\n")
    assert forbidden_imports("kcli.broker.server", "from ..admin import wire\n")
    assert forbidden_imports("kcli.ops.groups", "from kcli.cli.context import state\n")
    assert not forbidden_imports("kcli.cli.topics", "from kcli.ops import topics\n")
