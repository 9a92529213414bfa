"""list acls, create acl, delete acls (kafka-acls --list, --add, --remove), with kafka-acls'
option names; create acl lints first (kcli.ops.acl_lint), delete acls is a dry run without
--execute."""

from __future__ import annotations

from typing import List, Optional

import typer

from kcli.cli.context import out, state
from kcli.errors import UsageError
from kcli.inputs import shown

TOPICS = typer.Option(None, "--topic", "-t", help="A topic (repeatable; '*' is every topic).")
GROUPS = typer.Option(None, "--group", "-g", help="A consumer group (repeatable; '*' is every group).")
CLUSTER = typer.Option(False, "--cluster", help="The cluster resource.")
TRANSACTIONAL_IDS = typer.Option(None, "--transactional-id", help="A transactional id (repeatable).")
TOKENS = typer.Option(None, "--delegation-token", help="A delegation token id (repeatable).")
USERS = typer.Option(None, "--user-principal", help="A user principal as a resource (repeatable).")


def _resources(topic, group, cluster, transactional_id, delegation_token, user_principal, pattern: str):
    from kcli.model import CLUSTER_NAME

    named = [("TOPIC", topic), ("GROUP", group), ("TRANSACTIONAL_ID", transactional_id),
             ("DELEGATION_TOKEN", delegation_token), ("USER", user_principal)]
    patterns = [(rtype, name, pattern) for rtype, names in named for name in (names or [])]
    if cluster:
        patterns.append(("CLUSTER", CLUSTER_NAME, "LITERAL" if pattern == "PREFIXED" else pattern))
    return list(dict.fromkeys(patterns))


def list_acls(
    topic: Optional[List[str]] = TOPICS, group: Optional[List[str]] = GROUPS, cluster: bool = CLUSTER,
    transactional_id: Optional[List[str]] = TRANSACTIONAL_IDS, delegation_token: Optional[List[str]] = TOKENS,
    user_principal: Optional[List[str]] = USERS,
    resource_pattern_type: str = typer.Option(
        "match", "--resource-pattern-type", help="literal, prefixed, any (either, by the exact name) or match "
                                                 "(every ACL that applies to the name: literal, '*' and prefixes)."),
    principal: Optional[List[str]] = typer.Option(None, "--principal", help="Only this principal's (repeatable)."),
):
    """List ACLs, every one or those of the resources named (kafka-acls --list)."""
    from kcli.model import AclFilter
    from kcli.ops import acls as lib
    from kcli.render import acls as view

    pattern = lib.pattern_type(resource_pattern_type)
    principals = [lib.principal(p) for p in principal or []]
    resources = _resources(topic, group, cluster, transactional_id, delegation_token, user_principal, pattern)
    filters = [AclFilter(*r) for r in resources] or [AclFilter()]
    rules = lib.select(state().admin(), filters)
    view.render_acls(out(), [r for r in rules if not principals or r.principal in principals])


def create_acl(
    topic: Optional[List[str]] = TOPICS, group: Optional[List[str]] = GROUPS, cluster: bool = CLUSTER,
    transactional_id: Optional[List[str]] = TRANSACTIONAL_IDS, delegation_token: Optional[List[str]] = TOKENS,
    user_principal: Optional[List[str]] = USERS,
    resource_pattern_type: str = typer.Option("literal", "--resource-pattern-type",
                                              help="literal (the name, or '*' for every one) or prefixed."),
    allow_principal: Optional[List[str]] = typer.Option(None, "--allow-principal",
                                                        help="Type:name, allowed (repeatable): User:alice."),
    deny_principal: Optional[List[str]] = typer.Option(None, "--deny-principal",
                                                       help="Type:name, denied (repeatable; DENY wins)."),
    allow_host: Optional[List[str]] = typer.Option(None, "--allow-host",
                                                   help="An IP address the allowed may come from (default '*')."),
    deny_host: Optional[List[str]] = typer.Option(None, "--deny-host",
                                                  help="An IP address the denied are refused from (default '*')."),
    operation: List[str] = typer.Option(..., "--operation", help="Read, Write, Describe, ... or All (repeatable)."),
):
    """Create ACLs, linted first: warnings on stderr (kafka-acls --add)."""
    from kcli.ops import acls as lib
    from kcli.render import acls as view

    pattern = lib.pattern_type(resource_pattern_type, adding=True)
    resources = _resources(topic, group, cluster, transactional_id, delegation_token, user_principal, pattern)
    if not resources:
        raise UsageError("Name a resource: --topic, --group, --cluster, --transactional-id, --delegation-token "
                         "or --user-principal")
    if not allow_principal and not deny_principal:
        raise UsageError("Name a principal: --allow-principal or --deny-principal")
    operations = list(dict.fromkeys(lib.known_operation(name) for name in operation))
    rules = []
    for resource in resources:
        lib.check_operations(resource[0], operations)
        rules += lib.rules_for(resource, [p.strip() for p in allow_principal or []], "ALLOW", operations,
                               [h.strip() for h in allow_host or ["*"]])
        rules += lib.rules_for(resource, [p.strip() for p in deny_principal or []], "DENY", operations,
                               [h.strip() for h in deny_host or ["*"]])
    output = out()
    created = lib.create_linted(state().admin(), rules, lambda text: output.note(f"Warn: {text}"))
    view.render_acls(output, created, "acl-create")


def delete_acls(
    topic: Optional[List[str]] = TOPICS, group: Optional[List[str]] = GROUPS, cluster: bool = CLUSTER,
    transactional_id: Optional[List[str]] = TRANSACTIONAL_IDS, delegation_token: Optional[List[str]] = TOKENS,
    user_principal: Optional[List[str]] = USERS,
    resource_pattern_type: str = typer.Option(
        "literal", "--resource-pattern-type", help="literal, prefixed, any (either, by the exact name) or match "
                                                   "(every ACL that applies to the name: take care)."),
    principal: Optional[str] = typer.Option(None, "--principal", help="Only this principal's."),
    host: Optional[str] = typer.Option(None, "--host", help="Only those of this host."),
    operation: Optional[str] = typer.Option(None, "--operation", help="Only those of this operation."),
    permission: Optional[str] = typer.Option(None, "--permission", help="Only allow or only deny ACLs."),
    execute: bool = typer.Option(False, "--execute", help="Delete them; without it, only show what would go."),
):
    """Delete ACLs: a dry run showing them unless --execute (kafka-acls --remove)."""
    from kcli.datatypes import replace
    from kcli.model import AclFilter
    from kcli.ops import acls as lib
    from kcli.render import acls as view

    pattern = lib.pattern_type(resource_pattern_type)
    resources = _resources(topic, group, cluster, transactional_id, delegation_token, user_principal, pattern)
    kafka_operation = "ANY" if operation is None else lib.known_operation(operation)
    if permission is not None and permission.upper() not in ("ALLOW", "DENY"):
        raise UsageError(f"--permission is allow or deny, not '{shown(permission)}'")
    who = None if principal is None else lib.principal(principal)
    if not resources and who is None:
        raise UsageError("Name the ACLs: a resource (--topic, --group, --cluster, ...) or a --principal")
    entry = AclFilter(principal=who, host=host, operation=kafka_operation,
                      permission="ANY" if permission is None else permission.upper())
    filters = [replace(entry, resource_type=t, name=n, pattern_type=p) for t, n, p in resources] or [entry]
    rules = lib.delete_matching(state().admin(), filters, execute)
    output = out()
    view.render_acls(output, rules, "acl-delete", executed=execute)
    if not execute:
        output.note(f"Dry run: {len(rules)} ACL{'s' if len(rules) != 1 else ''} would be deleted; --execute "
                    "deletes them.")
