"""kafka-acls' execution (its grammar: ``kcli.cli.dropin.acls``), in AclCommand's order: the
resources and entries the options name, then per resource the existing bindings, the tool's lines
and the request. kcli's ACL linter runs before any CreateAcls; its warnings go to stderr, stdout
stays the Java tool's. An error is the tool's line on stdout (``Error while executing ACL
command: ...``), without its stack trace."""

from __future__ import annotations

import sys

from kcli.cli.dropin import jopt
from kcli.cli.dropin.common import Usage
from kcli.cli.dropin.run import Console, admin_for
from kcli.errors import EXIT_USAGE, KcliError, UsageError
from kcli.inputs import printable
from kcli.model import AclFilter, AclRule
from kcli.render.acls import binding_text, entry_text, pattern_text, plain_listing

ERROR = "Error while executing ACL command: "
_RESOURCES = (("topic", "TOPIC"), ("group", "GROUP"), ("transactional-id", "TRANSACTIONAL_ID"),
              ("delegation-token", "DELEGATION_TOKEN"), ("user-principal", "USER"))

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.ops.acls import Pattern


def execute(req, console: Console) -> int:
    try:
        plan = _plan(req)
    except Usage as exc:
        console.write("stderr", exc.message + "\n")
        return EXIT_USAGE
    except UsageError as exc:
        console.write("stdout", f"{ERROR}{exc.message}\n")
        return EXIT_USAGE
    try:
        with admin_for(req.bootstrap, req.parsed.raw("command-config"), console.timeout_ms, console) as admin:
            return {"add": _add, "remove": _remove, "list": _list}[req.action](admin, req, plan, console)
    except KcliError as exc:
        console.write("stdout", f"{ERROR}{exc.message}\n")
        return console.failed(exc)


def _plan(req):
    """What the options name, checked before any request: for --list the patterns and principals,
    else each resource pattern (filter) with its entries (AclCommand.getResourceFilterToAcls)."""
    from kcli.ops import acls as lib

    p = req.parsed
    try:
        given = p.value("resource-pattern-type")
    except jopt.JoptError as exc:
        raise UsageError(str(exc)) from None
    if given.upper() not in ("LITERAL", "PREFIXED", "MATCH", "ANY"):       # jopt's conversion, when read
        raise UsageError(f"Cannot parse argument '{printable(given)}' of option resource-pattern-type")
    ptype = lib.pattern_type(given)
    if req.action == "list":
        return _patterns(p, ptype, False), [lib.principal(t) for t in p.texts("principal")]
    if req.action == "add" and ptype not in ("LITERAL", "PREFIXED"):
        raise Usage(f"A '--resource-pattern-type' value of '{ptype}' is not valid when adding acls.")
    plan: dict[Pattern, list[AclRule]] = {}
    who = _who(p)
    if not p.has("producer") and not p.has("consumer"):
        operations = list(dict.fromkeys(lib.operation(lib.java_trim(o)) for o in p.values("operation")))
        for pattern in _patterns(p, ptype, True):
            plan[pattern] = _rules(pattern, who, operations)
    if p.has("producer"):
        patterns = _patterns(p, ptype, True)
        for pattern in patterns:
            ops = {"TOPIC": ["WRITE", "DESCRIBE", "CREATE"], "TRANSACTIONAL_ID": ["WRITE", "DESCRIBE"]}.get(pattern[0])
            if ops:
                plan[pattern] = _rules(pattern, who, ops)
        if p.has("idempotent"):
            plan[lib.CLUSTER_PATTERN] = _rules(lib.CLUSTER_PATTERN, who, ["IDEMPOTENT_WRITE"])
    if p.has("consumer"):
        for pattern in _patterns(p, ptype, True):
            ops = {"TOPIC": ["READ", "DESCRIBE"], "GROUP": ["READ"]}.get(pattern[0])
            if ops:
                merged = plan.setdefault(pattern, [])
                merged += [r for r in _rules(pattern, who, ops) if r not in merged]
    for pattern, rules in plan.items():
        try:
            lib.check_operations(pattern[0], [r.operation for r in rules])
        except UsageError as exc:
            raise Usage(exc.message) from None
    if req.action == "add" and any(not rules for rules in plan.values()):
        raise Usage("You must specify one of: --allow-principal, --deny-principal when trying to add ACLs.")
    return plan


def _who(p) -> tuple[list[str], list[str], list[str], list[str]]:
    """The allowed principals and hosts, then the denied (AclCommand.getPrincipals, getHosts): a
    principal's host '*' unless hosts are given."""
    from kcli.ops import acls as lib

    out: list[list[str]] = []
    for who, where in (("allow-principal", "allow-host"), ("deny-principal", "deny-host")):
        out.append([lib.principal(t) for t in p.texts(who)])
        out.append([lib.java_trim(h) for h in p.texts(where)] if p.has(where) else ["*"])
    return out[0], out[1], out[2], out[3]


def _rules(pattern: Pattern, who, operations: list[str]) -> list[AclRule]:
    """Every ALLOW, then every DENY, of ``who`` (``_who``) on ``pattern`` (AclCommand.getAcl)."""
    from kcli.ops.acls import rules_for

    allow, allow_hosts, deny, deny_hosts = who
    return list(dict.fromkeys(rules_for(pattern, allow, "ALLOW", operations, allow_hosts)
                              + rules_for(pattern, deny, "DENY", operations, deny_hosts)))


def _patterns(p, ptype: str, required: bool) -> list[Pattern]:
    """AclCommand.getResourceFilter: the resources named, in its order; the cluster only with a
    LITERAL pattern type."""
    from kcli.ops.acls import CLUSTER_PATTERN, java_trim

    patterns: list[Pattern] = [("TOPIC", java_trim(t), ptype) for t in p.texts("topic")]
    if ptype == "LITERAL" and (p.has("cluster") or p.has("idempotent")):
        patterns.append(CLUSTER_PATTERN)
    for flag, rtype in _RESOURCES[1:]:
        # the tool trims every name but a transactional id's
        patterns += [(rtype, t if flag == "transactional-id" else java_trim(t), ptype) for t in p.texts(flag)]
    if not patterns and required:
        raise Usage("You must provide at least one resource: --topic <topic> or --cluster or --group <group> or "
                    "--delegation-token <Delegation Token ID>")
    return list(dict.fromkeys(patterns))


def _add(admin, req, plan: dict, console: Console) -> int:
    from kcli.ops import acls as lib

    for text in lib.lint(admin, [r for rules in plan.values() for r in rules]):
        console.write("stderr", f"Warn: {text}\n")
    for pattern, rules in plan.items():
        existing = set(lib.existing_of_pattern(admin, pattern))
        for r in rules:
            if r in existing:
                console.write("stdout", f"Acl {binding_text(r)} already exists.\n")
        new = [r for r in rules if r not in existing]
        if new:
            console.write("stdout", f"Adding ACLs for resource `{pattern_text(*pattern)}`: \n "
                          + "\n".join(f"\t{entry_text(r)}" for r in new) + "\n\n")
            failed = [e for e in lib.create(admin, new).values() if e is not None]
            if failed:
                console.write("stdout", f"{ERROR}{failed[0].message}\n")
                return 1
    return 0


def _remove(admin, req, plan: dict, console: Console) -> int:
    from kcli.ops import acls as lib

    for pattern, rules in plan.items():
        if not rules:
            question = (f"Are you sure you want to delete all ACLs for resource filter `{pattern_text(*pattern)}`? "
                        "(y/n)")
            filters = [AclFilter(*pattern)]
        else:
            question = ("Are you sure you want to remove ACLs: \n " + "\n".join(f"\t{entry_text(r)}" for r in rules)
                        + f"\n from resource filter `{pattern_text(*pattern)}`? (y/n)")
            filters = [AclFilter(pattern[0], pattern[1], pattern[2], principal=r.principal, host=r.host,
                                 operation=r.operation, permission=r.permission) for r in rules]
        if not req.parsed.has("force"):
            console.write("stdout", question + "\n")
            if not _confirmed():
                continue
        lib.delete(admin, filters)
    return 0


def _confirmed() -> bool:
    """The answer to the tool's prompt, a line on stdin: ``y`` (any case) is yes; anything else,
    the end of input or an unreadable stdin, no (the Java tool needs a console, and fails without)."""
    try:
        return sys.stdin.readline().strip().lower() == "y"
    except (OSError, ValueError):
        return False


def _list(admin, req, plan, console: Console) -> int:
    from kcli.ops import acls as lib

    patterns, principals = plan
    found = lib.describe(admin, [AclFilter(*pattern) for pattern in patterns] if patterns else None)
    if not principals:
        _print_blocks(console, found)
    for principal in dict.fromkeys(principals):
        console.write("stdout", f"ACLs for principal `{principal}`\n")
        _print_blocks(console, {pattern: kept for pattern, rules in found.items()
                                if (kept := [r for r in rules if r.principal == principal])})
    return 0


def _print_blocks(console: Console, found: dict) -> None:
    console.write("stdout", plain_listing([r for rules in found.values() for r in rules]))
