"""Client-quota views (schema kcli.quotas/v1, kcli.quotas-alter/v1)."""

from __future__ import annotations

from kcli.model import QuotaEntity
from kcli.render.output import Output, Table, json_document


def entity_text(parts) -> str:
    return ",".join(f"{kind}={'<default>' if name is None else name}" for kind, name in parts)


def number(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(value)


def render_quotas(out: Output, entities: list[QuotaEntity]) -> None:
    if out.format == "json":
        out.json(json_document("quotas", entities=[
            {"entity": [{"type": k, "name": n} for k, n in e.parts], "quotas": dict(sorted(e.values.items()))}
            for e in entities]))
        return
    table = Table(["ENTITY", "QUOTA", "VALUE"])
    for e in entities:
        for key, value in sorted(e.values.items()):
            table.add([entity_text(e.parts), key, number(value)])
    out.table(table)


def render_altered(out: Output, parts, set_: dict[str, float], removed: list[str], executed: bool) -> None:
    if out.format == "json":
        out.json(json_document("quotas-alter", entity=[{"type": k, "name": n} for k, n in parts],
                               set=set_, deleted=removed, executed=executed))
        return
    changes = [f"{k}={number(v)}" for k, v in set_.items()] + [f"-{k}" for k in removed]
    if executed:
        out.line(f"Altered the quotas of {entity_text(parts)}: {', '.join(changes)}.")
    else:
        out.line(f"Dry run: the broker accepts {', '.join(changes)} for {entity_text(parts)}; "
                 "add --execute to apply it.")
