"""Config views (schema kcli.configs/v1)."""

from __future__ import annotations

from kcli.kip937 import explain
from kcli.redaction import redact
from kcli.model import ResourceConfig
from kcli.render.output import Output, Table, json_document


def _value(e) -> str:
    if e.is_sensitive:
        return "[sensitive]"
    return "" if e.value is None else redact(e.name, e.value)


# kafka-configs --describe without --all lists only the entries set on the resource itself.
_DYNAMIC_SOURCE = {"topic": "DYNAMIC_TOPIC_CONFIG", "broker": "DYNAMIC_BROKER_CONFIG"}


def plain_configs(rc: ResourceConfig, show_all: bool, default_brokers: bool = False) -> str:
    """kafka-configs --describe's layout: a header, then sorted ``  name=value sensitive=...
    synonyms={SOURCE:name=value, ...}`` lines. ``default_brokers``: the cluster-wide broker
    defaults (entity name ""), with their own header and dynamic source."""
    dynamic: str | None
    if default_brokers:
        lines, dynamic = ["Default configs for brokers in the cluster are:"], "DYNAMIC_DEFAULT_BROKER_CONFIG"
    else:
        lines = [f"{'All' if show_all else 'Dynamic'} configs for {rc.resource_type} {rc.name} are:"]
        dynamic = _DYNAMIC_SOURCE.get(rc.resource_type)
    for e in sorted(rc.entries, key=lambda e: e.name):
        if show_all or e.source == dynamic:
            synonyms = ", ".join(f"{src}:{name}={_java(value)}" for name, value, src in e.synonyms)
            lines.append(f"  {e.name}={_java(e.value)} sensitive={str(e.is_sensitive).lower()} "
                         f"synonyms={{{synonyms}}}")
    return "\n".join(lines) + "\n"


def _java(value: str | None) -> str:
    return "null" if value is None else value


def render_configs(out: Output, resources: list[ResourceConfig], show_all: bool) -> None:
    if out.format == "plain":
        for rc in resources:
            out.write(plain_configs(rc, show_all))
        return
    docs, table = [], Table(["RESOURCE", "NAME", "VALUE", "SOURCE", "EFFECTIVE", "MEANING"])
    for rc in resources:
        notes = explain(rc)
        shown = sorted((e for e in rc.entries if show_all or not e.is_default or e.name in notes),
                       key=lambda e: e.name)
        configs: list[dict[str, object]] = []
        doc = {"type": rc.resource_type, "name": rc.name, "configs": configs}
        for e in shown:
            eff, text = notes.get(e.name, (None, ""))
            configs.append({"name": e.name, "value": None if e.is_sensitive else e.value,
                                   "source": e.source, "default": e.is_default,
                                   "sensitive": e.is_sensitive, "readOnly": e.read_only,
                                   "effective": eff, "meaning": text or None})
            table.add([f"{rc.resource_type}:{rc.name}", e.name, _value(e), e.source,
                               "" if eff is None else str(eff), text])
        docs.append(doc)
    if out.format == "json":
        out.json(json_document("configs", resources=docs))
    else:
        out.table(table)


def render_altered(out: Output, rtype: str, name: str, pairs: dict[str, str], deleted: list[str]) -> None:
    if out.format == "json":
        out.json(json_document("config-alter", resourceType=rtype, name=name,
                               set={k: redact(k, v) for k, v in pairs.items()}, deleted=deleted))
    else:
        out.line(f"Completed updating config for {rtype} {name}.")
