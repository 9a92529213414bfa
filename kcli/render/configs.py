"""Config views (schema kcli.configs/v1)."""

from __future__ import annotations

from kcli.admin.configs import explain
from kcli.admin.settings import redact
from kcli.model import ResourceConfig
from kcli.render.output import Output, Table, json_document


def _value(e) -> str:
    if e.is_sensitive:
        return "[sensitive]"
    return "" if e.value is None else redact(e.name, e.value)


def render_configs(out: Output, resources: list[ResourceConfig], show_all: bool) -> None:
    docs, table = [], Table(["RESOURCE", "NAME", "VALUE", "SOURCE", "EFFECTIVE", "MEANING"])
    for rc in resources:
        notes = explain(rc)
        shown = [e for e in rc.entries if show_all or not e.is_default or e.name in notes]
        doc = {"type": rc.resource_type, "name": rc.name, "configs": []}
        for e in shown:
            eff, text = notes.get(e.name, (None, ""))
            doc["configs"].append({"name": e.name, "value": None if e.is_sensitive else e.value,
                                   "source": e.source, "default": e.is_default,
                                   "sensitive": e.is_sensitive, "readOnly": e.read_only,
                                   "effective": eff, "meaning": text or None})
            table.rows.append([f"{rc.resource_type}:{rc.name}", e.name, _value(e), e.source,
                               "" if eff is None else str(eff), text])
        docs.append(doc)
        if out.format == "plain":
            out.line(f"Configs for {rc.resource_type} '{rc.name}' are:")
            for e in shown:
                out.line(f"  {e.name}={_value(e)} source={e.source}"
                         + (f" effective={notes[e.name][0]} ({notes[e.name][1]})" if e.name in notes else ""))
    if out.format == "json":
        out.json(json_document("configs", resources=docs))
    elif out.format != "plain":
        out.table(table)


def render_altered(out: Output, rtype: str, name: str, pairs: dict[str, str], deleted: list[str]) -> None:
    if out.format == "json":
        out.json(json_document("config-alter", resource_type=rtype, name=name,
                               set={k: redact(k, v) for k, v in pairs.items()}, deleted=deleted))
    else:
        out.line(f"Completed updating config for {rtype} {name}.")
