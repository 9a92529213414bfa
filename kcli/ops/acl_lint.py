"""The ACL linter, pure: what is wrong or surprising about ACLs about to be created, given the
ones that exist. Each finding is one line; ``refusal`` findings make a create fail (the broker
would refuse or the ACL could never match), the others are warnings.

The rules (StandardAuthorizer's matching):
- a PREFIXED ``*`` matches only names starting with ``*``, not every name (a LITERAL ``*`` does);
- a LITERAL and a PREFIXED pattern of one resource type on overlapping names (the literal name
  starts with the prefix): both apply to that name, which surprises whoever reads one of them;
- an ALLOW that a DENY shadows: DENY wins, so an ALLOW whose principal, host, operation and
  resources a DENY covers grants nothing;
- a principal without a type (``alice``, not ``User:alice``), or with a type the authorizer
  never matches (``user:alice``: types are case-sensitive);
- a host that is not an IP address: the authorizer compares the client's address, never a name.
"""

from __future__ import annotations

import ipaddress

from kcli.datatypes import datatype
from kcli.model import AclRule

PRINCIPAL_TYPES = ("User", "Group")


@datatype(frozen=True)
class Finding:
    text: str
    refusal: bool = False


def _shown(r: AclRule) -> str:
    return f"{r.pattern_type} {r.resource_type} '{r.name}'"


def _entry(r: AclRule) -> str:
    return f"{r.permission} {r.operation} for {r.principal} from {r.host}"


def covers_name(pattern_type: str, pattern: str, name: str) -> bool:
    """A pattern matches a resource name (StandardAuthorizer)."""
    if pattern_type == "LITERAL":
        return pattern == "*" or pattern == name
    return name.startswith(pattern)


def covers_pattern(deny: AclRule, allow: AclRule) -> bool:
    """Every resource ``allow``'s pattern matches, ``deny``'s matches too."""
    if deny.resource_type != allow.resource_type:
        return False
    if deny.pattern_type == "LITERAL" and deny.name == "*":
        return True
    if allow.pattern_type == "LITERAL":
        return allow.name != "*" and covers_name(deny.pattern_type, deny.name, allow.name)
    return deny.pattern_type == "PREFIXED" and allow.name.startswith(deny.name)


def shadows(deny: AclRule, allow: AclRule) -> bool:
    return (deny.permission == "DENY" and allow.permission == "ALLOW" and covers_pattern(deny, allow)
            and deny.principal in (allow.principal, "User:*")
            and deny.host in (allow.host, "*") and deny.operation in (allow.operation, "ALL"))


def _principal(r: AclRule) -> Finding | None:
    if ":" not in r.principal:
        return Finding(f"principal '{r.principal}' has no type: write User:{r.principal}", refusal=True)
    kind = r.principal.split(":", 1)[0]
    if kind not in PRINCIPAL_TYPES:
        return Finding(f"principal '{r.principal}' has the type '{kind}', which Kafka's authorizer never matches "
                       f"(types are case-sensitive: {', '.join(PRINCIPAL_TYPES)})")
    return None


def _host(r: AclRule) -> Finding | None:
    if r.host == "*":
        return None
    try:
        ipaddress.ip_address(r.host)
        return None
    except ValueError:
        return Finding(f"host '{r.host}' is not an IP address: the authorizer compares the client's address, so "
                       f"{_entry(r)} never matches")


def lint(new: list[AclRule], existing: list[AclRule]) -> list[Finding]:
    """The findings about ``new`` (about to be created) beside ``existing``, each said once, in
    ``new``'s order."""
    found: list[Finding] = []
    everything = list(dict.fromkeys([*existing, *new]))
    overlaps: set[tuple[str, str, str]] = set()
    for r in new:
        for finding in (_principal(r), _host(r)):
            if finding is not None:
                found.append(finding)
        if r.pattern_type == "PREFIXED" and r.name == "*":
            found.append(Finding(f"a PREFIXED '*' matches only {r.resource_type} names that start with '*', not every "
                                 f"one: a LITERAL '*' does ({_entry(r)})"))
        for other in everything:
            if other.resource_type != r.resource_type or other.pattern_type == r.pattern_type:
                continue
            literal, prefixed = (r, other) if r.pattern_type == "LITERAL" else (other, r)
            key = (r.resource_type, literal.name, prefixed.name)
            if literal.name != "*" and literal.name.startswith(prefixed.name) and key not in overlaps:
                overlaps.add(key)
                found.append(Finding(f"{_shown(literal)} and {_shown(prefixed)} overlap: the ACLs of both apply to "
                                     f"'{literal.name}'"))
        for other in everything:
            if other == r:
                continue
            if shadows(other, r):
                found.append(Finding(f"{_entry(r)} on {_shown(r)} grants nothing: {_entry(other)} on "
                                     f"{_shown(other)} shadows it (DENY wins)"))
            elif shadows(r, other) and other not in new:
                found.append(Finding(f"{_entry(r)} on {_shown(r)} shadows the existing {_entry(other)} on "
                                     f"{_shown(other)} (DENY wins)"))
    return list(dict.fromkeys(found))
