"""ACLs: Kafka's names for operations and principals as its tools read them, the operations each
resource type supports, and list, create (linted first: ``kcli.ops.acl_lint``) and delete through
the adapter. Shared by ``kcli kafka-acls`` and the native ``list acls``, ``create acl`` and
``delete acls``."""

from __future__ import annotations

from kcli.errors import UsageError
from kcli.inputs import printable, shown
from kcli.model import ACL_OPERATIONS, CLUSTER_NAME, AclFilter, AclRule

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.admin import Admin
    from kcli.model import BrokerError


def pascal(name: str) -> str:
    """Kafka's enum name in its tools' spelling (SecurityUtils.toPascalCase): IDEMPOTENT_WRITE -> IdempotentWrite."""
    return "".join(part[:1] + part[1:].lower() for part in name.split("_"))


_OPERATIONS = {**{pascal(o): o for o in ACL_OPERATIONS}, **{pascal(o).upper(): o for o in ACL_OPERATIONS}}


def operation(text: str) -> str:
    """An operation as Kafka's tools read it (SecurityUtils.operation): its PascalCase name, or that
    name in any case; ``UNKNOWN`` otherwise (``IDEMPOTENT_WRITE`` is unknown, as in Java)."""
    return _OPERATIONS.get(text) or _OPERATIONS.get(text.upper(), "UNKNOWN")


# AclEntry.supportedOperations, ALL added (AclCommand.validateOperation)
SUPPORTED = {
    "TOPIC": ("READ", "WRITE", "CREATE", "DESCRIBE", "DELETE", "ALTER", "DESCRIBE_CONFIGS", "ALTER_CONFIGS"),
    "GROUP": ("READ", "DESCRIBE", "DELETE", "DESCRIBE_CONFIGS", "ALTER_CONFIGS"),
    "CLUSTER": ("CREATE", "CLUSTER_ACTION", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE", "ALTER",
                "DESCRIBE"),
    "TRANSACTIONAL_ID": ("DESCRIBE", "WRITE", "TWO_PHASE_COMMIT"),
    "DELEGATION_TOKEN": ("DESCRIBE",),
    "USER": ("CREATE_TOKENS", "DESCRIBE_TOKENS"),
}


def known_operation(text: str) -> str:
    """``operation``, or UsageError naming the operations for one Kafka does not have."""
    kafka = operation(text)
    if kafka == "UNKNOWN":
        raise UsageError(f"Unknown operation '{shown(text)}': one of {', '.join(pascal(o) for o in ACL_OPERATIONS)}")
    return kafka


def check_operations(resource_type: str, operations) -> None:
    """UsageError, in kafka-acls' words, when one of ``operations`` does not apply to the type."""
    valid = ("ALL", *SUPPORTED[resource_type])
    if any(o not in valid for o in operations):
        raise UsageError(f"ResourceType {resource_type} only supports operations [{', '.join(valid)}]")


def java_trim(text: str) -> str:
    """java.lang.String.trim: every character up to U+0020 off both ends."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


def principal(text: str) -> str:
    """A principal as Kafka reads it (SecurityUtils.parseKafkaPrincipal): ``Type:name``, split at
    the first colon; UsageError in Kafka's words without one."""
    text = java_trim(text)
    if ":" not in text:
        raise UsageError(f"expected a string in format principalType:principalName but got {printable(text)}")
    return text


CLUSTER_PATTERN = ("CLUSTER", CLUSTER_NAME, "LITERAL")        # the one cluster resource's pattern


def rules_for(pattern: tuple[str, str, str], principals: list[str], permission: str, operations: list[str],
              hosts: list[str]) -> list[AclRule]:
    """Every combination, principal by principal (AclCommand.getAcls), without repeats."""
    rules = [AclRule(*pattern, p, h, o, permission) for p in principals for o in operations for h in hosts]
    return list(dict.fromkeys(rules))


# -- through the adapter ---------------------------------------------------------------------

Pattern = tuple[str, str, str]          # resource type, name, pattern type


def describe(admin: Admin, filters: list[AclFilter] | None = None) -> dict[Pattern, list[AclRule]]:
    """The bindings of every filter (every binding without one), by resource pattern, in the
    broker's order, without repeats."""
    found: dict[Pattern, list[AclRule]] = {}
    for acl_filter in filters or [AclFilter()]:
        for rule in admin.describe_acls(acl_filter):
            entries = found.setdefault((rule.resource_type, rule.name, rule.pattern_type), [])
            if rule not in entries:
                entries.append(rule)
    return found


def refusals(rules: list[AclRule]) -> None:
    """UsageError for the first rule the linter refuses (no request needed: a principal without
    a type, which the broker refuses too)."""
    from kcli.ops.acl_lint import lint

    for finding in lint(rules, []):
        if finding.refusal:
            raise UsageError(finding.text)


def lint(admin: Admin, rules: list[AclRule]) -> list[str]:
    """The linter's warnings about ``rules`` beside the bindings that exist on their resource types
    (read first: one DescribeAcls per type)."""
    from kcli.ops.acl_lint import lint as lint_rules

    types = list(dict.fromkeys(r.resource_type for r in rules))
    existing = [r for t in types for r in admin.describe_acls(AclFilter(resource_type=t))]
    return [f.text for f in lint_rules(rules, existing) if not f.refusal]


def select(admin: Admin, filters: list[AclFilter]) -> list[AclRule]:
    """The bindings any of ``filters`` matches, each once, in the broker's order."""
    return [r for rules in describe(admin, filters).values() for r in rules]


def create_linted(admin: Admin, rules: list[AclRule], warn) -> list[AclRule]:
    """``rules`` linted (a refusal: UsageError before any request; each warning to ``warn``), then
    created in one CreateAcls; those the broker refused fail the command (exit 1, or 3 when others
    were created), named with the broker's reason."""
    from kcli.ops.failures import raise_for

    refusals(rules)
    for text in lint(admin, rules):
        warn(text)
    results = create(admin, rules)
    failed = [(r, e) for r, e in results.items() if e is not None]
    if failed:
        r, e = failed[0]
        raise_for(len(rules), len(failed), f"{len(failed)} of {len(rules)} ACLs not created: {e.message} "
                                           f"({r.permission} {r.operation} for {r.principal} on {describe_shown(r)})")
    return rules


def delete_matching(admin: Admin, filters: list[AclFilter], execute: bool) -> list[AclRule]:
    """What ``filters`` match: deleted with ``execute`` (one DeleteAcls, what the broker deleted),
    else only read (the dry run)."""
    if not execute:
        return select(admin, filters)
    return list(dict.fromkeys(r for rules in delete(admin, filters) for r in rules))


def existing_of_pattern(admin: Admin, pattern: Pattern) -> list[AclRule]:
    return admin.describe_acls(AclFilter(pattern[0], pattern[1], pattern[2]))


def create(admin: Admin, rules: list[AclRule]) -> dict[AclRule, BrokerError | None]:
    from kcli.ops.failures import change

    with change("the ACLs"):
        return admin.create_acls(rules) if rules else {}


def delete(admin: Admin, filters: list[AclFilter]) -> list[list[AclRule]]:
    from kcli.ops.failures import change

    with change("the ACL deletion"):
        return admin.delete_acls(filters) if filters else []


def pattern_type(text: str, adding: bool = False) -> str:
    """--resource-pattern-type: literal, prefixed, match or any, in any case."""
    value = text.upper()
    if value not in ("LITERAL", "PREFIXED", "MATCH", "ANY"):
        raise UsageError(f"Value [{printable(text)}] is not one of [ANY|MATCH|LITERAL|PREFIXED]")
    if adding and value in ("MATCH", "ANY"):
        raise UsageError(f"A '--resource-pattern-type' value of '{value}' is not valid when adding acls.")
    return value


def describe_shown(r: AclRule) -> str:
    return f"{r.pattern_type.lower()} {r.resource_type.lower().replace('_', '-')} '{shown(r.name)}'"
