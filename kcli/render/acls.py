"""ACL views: kafka-acls' layout (plain: Java's ResourcePattern and AccessControlEntry texts),
a table, JSON (kcli.acls/v1, kcli.acl-create/v1, kcli.acl-delete/v1) and CSV."""

from __future__ import annotations

from kcli.model import AclRule
from kcli.render.output import Output, Table, json_document

COLUMNS = ["RESOURCE-TYPE", "NAME", "PATTERN-TYPE", "PRINCIPAL", "HOST", "OPERATION", "PERMISSION"]


def pattern_text(rtype: str, name: str, ptype: str) -> str:
    """ResourcePattern.toString (a named ResourcePatternFilter's is the same)."""
    return f"ResourcePattern(resourceType={rtype}, name={name}, patternType={ptype})"


def entry_text(r: AclRule) -> str:
    """AccessControlEntry.toString."""
    return f"(principal={r.principal}, host={r.host}, operation={r.operation}, permissionType={r.permission})"


def binding_text(r: AclRule) -> str:
    """AclBinding.toString."""
    return f"(pattern={pattern_text(r.resource_type, r.name, r.pattern_type)}, entry={entry_text(r)})"


def by_pattern(rules: list[AclRule]) -> dict[tuple[str, str, str], list[AclRule]]:
    found: dict[tuple[str, str, str], list[AclRule]] = {}
    for r in rules:
        found.setdefault((r.resource_type, r.name, r.pattern_type), []).append(r)
    return found


def plain_listing(rules: list[AclRule]) -> str:
    """kafka-acls --list's blocks: each resource pattern, then its entries, then a blank line."""
    return "".join(f"Current ACLs for resource `{pattern_text(*pattern)}`:\n"
                   + "\n".join(f"\t{entry_text(r)}" for r in entries) + "\n\n"
                   for pattern, entries in by_pattern(rules).items())


def _json(r: AclRule) -> dict:
    return {"resourceType": r.resource_type, "name": r.name, "patternType": r.pattern_type,
            "principal": r.principal, "host": r.host, "operation": r.operation, "permission": r.permission}


def render_acls(out: Output, rules: list[AclRule], kind: str = "acls", **extra) -> None:
    """``rules`` in every format: kafka-acls' blocks (plain), one row per ACL (table, csv), or the
    ``kind`` document with ``extra``'s keys (json)."""
    if out.format == "json":
        out.json(json_document(kind, **extra, acls=[_json(r) for r in rules]))
    elif out.format == "plain":
        out.write(plain_listing(rules))
    else:
        out.table(Table(COLUMNS, [[r.resource_type, r.name, r.pattern_type, r.principal, r.host, r.operation,
                                   r.permission] for r in rules]))
