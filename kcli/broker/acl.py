"""ACLs and the authorizer, as Kafka's StandardAuthorizer decides (pure: no I/O, no broker state).

A binding is a resource pattern (type, name, LITERAL or PREFIXED) and an entry (principal, host,
operation, ALLOW or DENY). ``Authorizer.authorize(principal, host, operation, type, name)``:

- a super user is allowed everything;
- the bindings that apply are those of the resource's type whose pattern matches its name
  (LITERAL: the same name, or ``*``; PREFIXED: a prefix of it), whose principal is the
  principal or ``User:*``, and whose host is the client's address or ``*``;
- a DENY of the operation (or ALL) wins; else an ALLOW of it (or ALL) allows, and ALLOW of READ,
  WRITE, DELETE or ALTER implies DESCRIBE, ALLOW of ALTER_CONFIGS implies DESCRIBE_CONFIGS;
- nothing allows: denied (``allow.everyone.if.no.acl.found`` false, Kafka's default).

The filters of DescribeAcls and DeleteAcls match as Kafka's ResourcePatternFilter and
AccessControlEntryFilter (ANY, and MATCH: every pattern that would apply to the named resource).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class ResourceType(IntEnum):
    UNKNOWN = 0
    ANY = 1
    TOPIC = 2
    GROUP = 3
    CLUSTER = 4
    TRANSACTIONAL_ID = 5
    DELEGATION_TOKEN = 6
    USER = 7


class PatternType(IntEnum):
    UNKNOWN = 0
    ANY = 1
    MATCH = 2
    LITERAL = 3
    PREFIXED = 4


class Op(IntEnum):
    UNKNOWN = 0
    ANY = 1
    ALL = 2
    READ = 3
    WRITE = 4
    CREATE = 5
    DELETE = 6
    ALTER = 7
    DESCRIBE = 8
    CLUSTER_ACTION = 9
    DESCRIBE_CONFIGS = 10
    ALTER_CONFIGS = 11
    IDEMPOTENT_WRITE = 12
    CREATE_TOKENS = 13
    DESCRIBE_TOKENS = 14
    TWO_PHASE_COMMIT = 15


class Permission(IntEnum):
    UNKNOWN = 0
    ANY = 1
    DENY = 2
    ALLOW = 3


WILDCARD = "*"
WILDCARD_PRINCIPAL = "User:*"
CLUSTER_NAME = "kafka-cluster"
IMPLIES: dict[int, set[int]] = {Op.DESCRIBE: {Op.READ, Op.WRITE, Op.DELETE, Op.ALTER},
                                 Op.DESCRIBE_CONFIGS: {Op.ALTER_CONFIGS}}
# the operations a resource type has (authorized-operations fields), as Kafka's AclEntry lists them
SUPPORTED: dict[int, tuple[Op, ...]] = {
    ResourceType.TOPIC: (Op.READ, Op.WRITE, Op.CREATE, Op.DESCRIBE, Op.DELETE, Op.ALTER,
                         Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS),
    ResourceType.GROUP: (Op.READ, Op.DESCRIBE, Op.DELETE),
    ResourceType.CLUSTER: (Op.CREATE, Op.CLUSTER_ACTION, Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS,
                           Op.IDEMPOTENT_WRITE, Op.ALTER, Op.DESCRIBE),
    ResourceType.TRANSACTIONAL_ID: (Op.DESCRIBE, Op.WRITE, Op.TWO_PHASE_COMMIT),
    ResourceType.DELEGATION_TOKEN: (Op.DESCRIBE,),
    ResourceType.USER: (Op.CREATE_TOKENS, Op.DESCRIBE_TOKENS),
}


@dataclass(frozen=True)
class AclBinding:
    resource_type: int
    resource_name: str
    pattern_type: int
    principal: str
    host: str
    operation: int
    permission: int

    def to_json(self) -> list:
        return [self.resource_type, self.resource_name, self.pattern_type, self.principal,
                self.host, self.operation, self.permission]


@dataclass(frozen=True)
class AclFilter:
    """DescribeAcls' filter, and each of DeleteAcls' (None: any name, principal, host)."""
    resource_type: int
    resource_name: str | None
    pattern_type: int
    principal: str | None
    host: str | None
    operation: int
    permission: int

    def matches(self, b: AclBinding) -> bool:
        if self.resource_type != ResourceType.ANY and self.resource_type != b.resource_type:
            return False
        if self.pattern_type not in (PatternType.ANY, PatternType.MATCH, b.pattern_type):
            return False
        if self.resource_name is not None:
            if self.pattern_type in (PatternType.ANY, b.pattern_type):
                if self.resource_name != b.resource_name:
                    return False
            elif b.pattern_type == PatternType.LITERAL:
                if b.resource_name not in (self.resource_name, WILDCARD):
                    return False
            elif not self.resource_name.startswith(b.resource_name):
                return False
        return ((self.principal is None or self.principal == b.principal)
                and (self.host is None or self.host == b.host)
                and self.operation in (Op.ANY, b.operation)
                and self.permission in (Permission.ANY, b.permission))

    def unknown(self) -> bool:
        """Kafka refuses a filter holding an UNKNOWN element."""
        return 0 in (self.resource_type, self.pattern_type, self.operation, self.permission)


def invalid_binding(b: AclBinding) -> str | None:
    """Why CreateAcls refuses ``b`` (INVALID_REQUEST), Kafka's words; None: valid."""
    if b.pattern_type not in (PatternType.LITERAL, PatternType.PREFIXED):
        return f"Invalid patternType {_name(PatternType, b.pattern_type)}"
    if b.resource_type in (ResourceType.ANY, ResourceType.UNKNOWN) or b.resource_type not in {
            r.value for r in ResourceType}:
        return f"Invalid resourceType {_name(ResourceType, b.resource_type)}"
    if b.operation in (Op.ANY, Op.UNKNOWN) or b.operation not in {o.value for o in Op}:
        return f"Invalid operation {_name(Op, b.operation)}"
    if b.permission not in (Permission.ALLOW, Permission.DENY):
        return f"Invalid permissionType {_name(Permission, b.permission)}"
    if b.resource_type == ResourceType.CLUSTER and b.resource_name != CLUSTER_NAME:
        return "The only valid name for the CLUSTER resource is kafka-cluster"
    if not b.resource_name:
        return "Invalid empty resource name specified"
    if ":" not in b.principal:
        return (f"Could not parse principal from `{b.principal}` (no colon is present "
                "separating the principal type from the principal name)")
    return None


def _name(enum, value: int) -> str:
    member = enum._value2member_map_.get(value)
    return member.name if member is not None else "UNKNOWN"


def _principal_applies(acl_principal: str, principal: str) -> bool:
    """An ACL's principal applies to the principal itself; ``User:*`` to every user."""
    return acl_principal == principal or (acl_principal == WILDCARD_PRINCIPAL and principal.startswith("User:"))


def principal_of(user: str) -> str:
    """A super user's principal: ``NAME`` is ``User:NAME``; ``Type:NAME`` stays as it is."""
    return user if ":" in user else f"User:{user}"


class Authorizer:
    """The ACLs of one cluster and the decisions they make; ``acls`` is kept in creation order."""

    def __init__(self, super_users=(), acls=()):
        self.super_users = {principal_of(u) for u in super_users}
        self.acls: list[AclBinding] = list(dict.fromkeys(acls))

    def authorize(self, principal: str, host: str, op: int, resource_type: int, name: str) -> bool:
        if principal in self.super_users:
            return True
        allowed = False
        for b in self._applying(principal, host, resource_type, name):
            if b.permission == Permission.DENY:
                if b.operation in (Op.ALL, op):
                    return False
            elif b.operation in (Op.ALL, op) or b.operation in IMPLIES.get(op, set()):
                allowed = True
        return allowed

    def _applying(self, principal: str, host: str, resource_type: int, name: str):
        for b in self.acls:
            if (b.resource_type == resource_type
                    and (b.resource_name in (name, WILDCARD) if b.pattern_type == PatternType.LITERAL
                         else name.startswith(b.resource_name))
                    and _principal_applies(b.principal, principal) and b.host in (host, WILDCARD)):
                yield b

    def authorized_operations(self, principal: str, host: str, resource_type: int, name: str) -> set[int]:
        return {int(op) for op in SUPPORTED[resource_type]
                if self.authorize(principal, host, op, resource_type, name)}

    def any_allowed(self, principal: str, host: str, op: int, resource_type: int) -> bool:
        """Whether ``op`` is allowed on some resource of the type (Kafka's
        authorizeByResourceType: an ALLOW of a pattern that no DENY covers)."""
        if principal in self.super_users:
            return True
        mine = [b for b in self.acls if b.resource_type == resource_type
                and _principal_applies(b.principal, principal) and b.host in (host, WILDCARD)
                and b.operation in (Op.ALL, op)]
        denies = [b for b in mine if b.permission == Permission.DENY]

        def covered(a: AclBinding) -> bool:
            return any((d.pattern_type == PatternType.LITERAL and d.resource_name in (WILDCARD, a.resource_name)
                        and (d.resource_name == WILDCARD or a.pattern_type == PatternType.LITERAL))
                       or (d.pattern_type == PatternType.PREFIXED and a.resource_name.startswith(d.resource_name))
                       for d in denies)
        return any(b.permission == Permission.ALLOW and not covered(b) for b in mine)

    # -- changes ---------------------------------------------------------------------------

    def add(self, binding: AclBinding) -> None:
        if binding not in self.acls:
            self.acls.append(binding)

    def matching(self, f: AclFilter) -> list[AclBinding]:
        return [b for b in self.acls if f.matches(b)]

    def remove(self, bindings: list[AclBinding]) -> None:
        gone = set(bindings)
        self.acls = [b for b in self.acls if b not in gone]
