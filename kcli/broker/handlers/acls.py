"""CreateAcls, DescribeAcls and DeleteAcls (v1-3, as Kafka 4.x serves them), against the
cluster's authorizer (kcli.broker.acl). Without one (no users, or an EmbeddedCluster without
``authorize``) each answers SECURITY_DISABLED, as Kafka without ``authorizer.class.name``.
CreateAcls and DeleteAcls need ALTER on the cluster, DescribeAcls DESCRIBE, else
CLUSTER_AUTHORIZATION_FAILED."""

from __future__ import annotations

from kcli.broker.acl import AclBinding, AclFilter, Op, invalid_binding
from kcli.broker.apikeys import CREATE_ACLS, DELETE_ACLS, DESCRIBE_ACLS
from kcli.broker.dispatch import RequestContext, handles
from kcli.broker.errors import Err
from kcli.protocol import RESPONSES

NO_AUTHORIZER = "No Authorizer is configured."
NOT_AUTHORIZED = "Cluster authorization failed."


def _refusal(ctx: RequestContext, op: int) -> tuple[int, str] | None:
    if not ctx.cluster.authorize:
        return Err.SECURITY_DISABLED, NO_AUTHORIZER
    if not ctx.allowed(op):
        return Err.CLUSTER_AUTHORIZATION_FAILED, NOT_AUTHORIZED
    return None


def _filter(f) -> AclFilter:
    return AclFilter(f.resource_type_filter, f.resource_name_filter, f.pattern_type_filter,
                     f.principal_filter, f.host_filter, f.operation, f.permission_type)


@handles(CREATE_ACLS, 1, 3)
async def create_acls(ctx: RequestContext, req):
    R = RESPONSES[CREATE_ACLS]
    refused = _refusal(ctx, Op.ALTER)
    results, valid = [], []
    for c in req.creations:
        binding = AclBinding(c.resource_type, c.resource_name, c.resource_pattern_type,
                             c.principal, c.host, c.operation, c.permission_type)
        error = refused or ((Err.INVALID_REQUEST, why) if (why := invalid_binding(binding)) else None)
        if error is None:
            valid.append(binding)
        code, message = error or (0, None)
        results.append(R.AclCreationResult(error_code=code, error_message=message))
    if valid:
        ctx.cluster.add_acls(valid)
    return R(version=ctx.api_version, throttle_time_ms=0, results=results)


@handles(DESCRIBE_ACLS, 1, 3)
async def describe_acls(ctx: RequestContext, req):
    R = RESPONSES[DESCRIBE_ACLS]
    v = ctx.api_version
    refused = _refusal(ctx, Op.DESCRIBE)
    f = _filter(req)
    if refused is None and f.unknown():
        refused = Err.INVALID_REQUEST, "The filter must not contain UNKNOWN elements."
    if refused is not None:
        return R(version=v, throttle_time_ms=0, error_code=refused[0], error_message=refused[1],
                 resources=[])
    grouped: dict[tuple, list] = {}
    for b in ctx.cluster.authorizer.matching(f):
        grouped.setdefault((b.resource_type, b.resource_name, b.pattern_type), []).append(
            R.DescribeAclsResource.AclDescription(principal=b.principal, host=b.host,
                                                  operation=b.operation, permission_type=b.permission))
    return R(version=v, throttle_time_ms=0, error_code=0, error_message=None, resources=[
        R.DescribeAclsResource(resource_type=t, resource_name=n, pattern_type=p, acls=acls)
        for (t, n, p), acls in grouped.items()])


@handles(DELETE_ACLS, 1, 3)
async def delete_acls(ctx: RequestContext, req):
    R = RESPONSES[DELETE_ACLS]
    FR = R.DeleteAclsFilterResult
    M = FR.DeleteAclsMatchingAcl
    refused = _refusal(ctx, Op.ALTER)
    results, gone = [], []
    for raw in req.filters:
        f = _filter(raw)
        if refused is not None:
            results.append(FR(error_code=refused[0], error_message=refused[1], matching_acls=[]))
            continue
        matched = [b for b in ctx.cluster.authorizer.matching(f) if b not in gone]
        gone += matched
        results.append(FR(error_code=0, error_message=None, matching_acls=[
            M(error_code=0, error_message=None, resource_type=b.resource_type,
              resource_name=b.resource_name, pattern_type=b.pattern_type, principal=b.principal,
              host=b.host, operation=b.operation, permission_type=b.permission)
            for b in matched]))
    if gone:
        ctx.cluster.remove_acls(gone)
    return R(version=ctx.api_version, throttle_time_ms=0, filter_results=results)
