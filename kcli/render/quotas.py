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


def java_double(value: float) -> str:
    """Java's Double.toString: the shortest digits that read back, ``1024.0``, ``12.5``, and
    computerized scientific notation below 10^-3 and from 10^7 on (``1.048576E7``)."""
    from decimal import Decimal

    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    sign = "-" if str(value).startswith("-") else ""
    a = abs(value)
    if a == 0:
        return sign + "0.0"
    digits_tuple = Decimal(repr(a)).as_tuple()
    digits = "".join(map(str, digits_tuple.digits)).rstrip("0") or "0"
    exponent = len(digits_tuple.digits) - 1 + int(digits_tuple.exponent)   # of the first digit
    if 1e-3 <= a < 1e7:
        if exponent >= 0:
            whole = (digits + "0" * exponent)[:exponent + 1]
            frac = digits[exponent + 1:] or "0"
        else:
            whole, frac = "0", "0" * (-exponent - 1) + digits
        return f"{sign}{whole}.{frac}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent}"


def tool_entity(parts) -> str:
    """kafka-configs' words for an entity: ``user-principal 'alice', client-id 'app'``, ``the
    default ip``."""
    words = {"user": "user-principal", "client-id": "client-id", "ip": "ip"}
    names = dict(parts)
    return ", ".join(f"the default {words[kind]}" if not names[kind] else f"{words[kind]} '{names[kind]}'"
                     for kind in ("user", "client-id", "ip") if kind in names)


def plain_tool_quotas(entities) -> list[str]:
    """kafka-configs --describe's lines for quota entities (in the order given), each entity's
    values in the admin client's HashMap order."""
    from kcli.javaorder import strings

    lines = []
    for e in entities:
        keys = strings(list(e.values), len(e.values))
        lines.append(f"Quota configs for {tool_entity(e.parts)} are "
                     + ", ".join(f"{k}={java_double(e.values[k])}" for k in keys))
    return lines
