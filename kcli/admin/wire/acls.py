"""ACLs on kcli's own connection: DescribeAcls, CreateAcls and DeleteAcls, with every resource
type and operation Kafka 4.4 has (librdkafka names neither the DELEGATION_TOKEN and USER resources
nor the CreateTokens, DescribeTokens and TwoPhaseCommit operations: it reads them as UNKNOWN).
Any broker answers them (KRaft forwards the changes to the controller)."""

from __future__ import annotations

from kcli.admin.wire.base import WireBase, error_name
from kcli.errors import BrokerRejected
from kcli.model import AclFilter, AclRule, BrokerError

# Kafka's codes (org.apache.kafka.common.resource.ResourceType, acl.AclOperation, ...), by index
RESOURCE_TYPES = ("UNKNOWN", "ANY", "TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID", "DELEGATION_TOKEN", "USER")
OPERATIONS = ("UNKNOWN", "ANY", "ALL", "READ", "WRITE", "CREATE", "DELETE", "ALTER", "DESCRIBE", "CLUSTER_ACTION",
              "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE", "CREATE_TOKENS", "DESCRIBE_TOKENS",
              "TWO_PHASE_COMMIT")
PERMISSIONS = ("UNKNOWN", "ANY", "DENY", "ALLOW")
PATTERN_TYPES = ("UNKNOWN", "ANY", "MATCH", "LITERAL", "PREFIXED")


def _name(names: tuple[str, ...], code: int) -> str:
    return names[code] if 0 <= code < len(names) else "UNKNOWN"


def _rejected(code: int, message: str | None) -> BrokerRejected:
    return BrokerRejected(BrokerError(code, error_name(code), message or error_name(code)))


class AclRequests(WireBase):
    def describe_acls(self, acl_filter: AclFilter) -> list[AclRule]:
        from kafka.protocol.admin.acl import DescribeAclsRequest as Req

        f = acl_filter
        resp = self.send(Req(version=self._version(Req, "DescribeAcls"),
                             resource_type_filter=RESOURCE_TYPES.index(f.resource_type),
                             resource_name_filter=f.name, pattern_type_filter=PATTERN_TYPES.index(f.pattern_type),
                             principal_filter=f.principal, host_filter=f.host,
                             operation=OPERATIONS.index(f.operation), permission_type=PERMISSIONS.index(f.permission)))
        if resp.error_code:
            raise self.refused(resp.error_code, "DescribeAcls", None) or _rejected(resp.error_code, resp.error_message)
        return [AclRule(_name(RESOURCE_TYPES, r.resource_type), r.resource_name, _name(PATTERN_TYPES, r.pattern_type),
                        a.principal, a.host, _name(OPERATIONS, a.operation), _name(PERMISSIONS, a.permission_type))
                for r in resp.resources for a in r.acls]

    def create_acls(self, rules: list[AclRule]) -> dict[AclRule, BrokerError | None]:
        from kafka.protocol.admin.acl import CreateAclsRequest as Req

        resp = self.send(Req(version=self._version(Req, "CreateAcls"), creations=[Req.AclCreation(
            resource_type=RESOURCE_TYPES.index(r.resource_type), resource_name=r.name,
            resource_pattern_type=PATTERN_TYPES.index(r.pattern_type), principal=r.principal, host=r.host,
            operation=OPERATIONS.index(r.operation), permission_type=PERMISSIONS.index(r.permission))
            for r in rules]))
        results = {r: (_rejected(res.error_code, res.error_message).error if res.error_code else None)
                   for r, res in zip(rules, resp.results)}
        for error in results.values():
            if (refusal := self.refused(error.code, "CreateAcls", None) if error else None):
                raise refusal
        return results

    def delete_acls(self, filters: list[AclFilter]) -> list[list[AclRule]]:
        from kafka.protocol.admin.acl import DeleteAclsRequest as Req

        resp = self.send(Req(version=self._version(Req, "DeleteAcls"), filters=[Req.DeleteAclsFilter(
            resource_type_filter=RESOURCE_TYPES.index(f.resource_type), resource_name_filter=f.name,
            pattern_type_filter=PATTERN_TYPES.index(f.pattern_type), principal_filter=f.principal,
            host_filter=f.host, operation=OPERATIONS.index(f.operation),
            permission_type=PERMISSIONS.index(f.permission)) for f in filters]))
        out = []
        for result in resp.filter_results:
            if result.error_code:
                raise self.refused(result.error_code, "DeleteAcls", None) or _rejected(result.error_code,
                                                                                       result.error_message)
            out.append([AclRule(_name(RESOURCE_TYPES, m.resource_type), m.resource_name,
                                _name(PATTERN_TYPES, m.pattern_type), m.principal, m.host,
                                _name(OPERATIONS, m.operation), _name(PERMISSIONS, m.permission_type))
                        for m in result.matching_acls])
        return out
