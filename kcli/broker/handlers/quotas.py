"""DescribeClientQuotas, AlterClientQuotas: client quotas stored per entity (user, client-id, ip
and their defaults), validated as Kafka's controller does (ClientQuotaControlManager); a client
id's producer_byte_rate is enforced as Produce throttle times (Cluster.throttle_ms), the rest is
stored only."""

from __future__ import annotations

from kcli.broker.acl import Op
from kcli.broker.apikeys import ALTER_CLIENT_QUOTAS, DESCRIBE_CLIENT_QUOTAS
from kcli.broker.dispatch import RequestContext, handles
from kcli.broker.errors import BrokerError, Err
from kcli.protocol import RESPONSES

USER, CLIENT_ID, IP = "user", "client-id", "ip"
# the keys each kind of entity takes (QuotaConfig), and whether a value must be whole
CLIENT_KEYS = {"producer_byte_rate": True, "consumer_byte_rate": True,
               "request_percentage": False, "controller_mutation_rate": False}
IP_KEYS = {"connection_creation_rate": True}
EXACT, DEFAULT, ANY = 0, 1, 2


def _entity(pairs) -> tuple[tuple[str, str | None], ...]:
    entity: dict[str, str | None] = {}
    for kind, name in pairs:
        if kind not in (USER, CLIENT_ID, IP):
            raise BrokerError(Err.INVALID_REQUEST, f"Unrecognized entity type {kind}")
        if kind in entity:
            raise BrokerError(Err.INVALID_REQUEST, f"Duplicate entity type {kind}")
        entity[kind] = name
    if not entity:
        raise BrokerError(Err.INVALID_REQUEST, "Invalid empty client quota entity")
    if IP in entity and len(entity) > 1:
        raise BrokerError(Err.INVALID_REQUEST, "Invalid quota entity combination, IP entity "
                          "should not be combined with User or ClientId")
    return tuple(sorted(entity.items()))


def _check_value(keys: dict[str, bool], key: str, value: float) -> None:
    if key not in keys:
        raise BrokerError(Err.INVALID_REQUEST, f"Invalid configuration key {key}")
    if keys[key] and value != int(value):
        raise BrokerError(Err.INVALID_REQUEST, f"Configuration {key} must be a Long value")
    if value <= 0:
        raise BrokerError(Err.INVALID_REQUEST, f"Illegal value {value} for {key}: must be positive")


@handles(ALTER_CLIENT_QUOTAS, 0, 1)
async def alter_client_quotas(ctx: RequestContext, req):
    cluster, v = ctx.cluster, ctx.api_version
    R = RESPONSES[ALTER_CLIENT_QUOTAS]
    E = R.EntryData
    entries, changed = [], False
    for entry in req.entries:
        shown = [E.EntityData(entity_type=e.entity_type, entity_name=e.entity_name)
                 for e in entry.entity]
        try:
            if not ctx.allowed(Op.ALTER_CONFIGS):        # Kafka: ALTER_CONFIGS on the cluster
                raise BrokerError(Err.CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed.")
            entity = _entity((e.entity_type, e.entity_name) for e in entry.entity)
            keys = IP_KEYS if entity[0][0] == IP else CLIENT_KEYS
            values = dict(cluster.quotas.get(entity, {}))
            for op in entry.ops:
                if op.remove:
                    if op.key not in keys:
                        raise BrokerError(Err.INVALID_REQUEST, f"Invalid configuration key {op.key}")
                    values.pop(op.key, None)
                else:
                    _check_value(keys, op.key, op.value)
                    values[op.key] = op.value
            if not req.validate_only:
                if values:
                    cluster.quotas[entity] = values
                else:
                    cluster.quotas.pop(entity, None)
                changed = True
            entries.append(E(error_code=0, error_message=None, entity=shown))
        except BrokerError as e:
            entries.append(E(error_code=e.code, error_message=e.message, entity=shown))
    if changed:
        cluster.save()
    return R(version=v, throttle_time_ms=0, entries=entries)


def _matches(entity: dict[str, str | None], components, strict: bool) -> bool:
    for c in components:
        if c.entity_type not in entity:
            return False
        name = entity[c.entity_type]
        if c.match_type == EXACT and name != c.match:
            return False
        if c.match_type == DEFAULT and name is not None:
            return False
    return not strict or len(entity) == len(components)


@handles(DESCRIBE_CLIENT_QUOTAS, 0, 1)
async def describe_client_quotas(ctx: RequestContext, req):
    cluster, v = ctx.cluster, ctx.api_version
    R = RESPONSES[DESCRIBE_CLIENT_QUOTAS]
    E = R.EntryData
    if not ctx.allowed(Op.DESCRIBE_CONFIGS):          # Kafka: DESCRIBE_CONFIGS on the cluster
        return R(version=v, throttle_time_ms=0, error_code=Err.CLUSTER_AUTHORIZATION_FAILED,
                 error_message="Cluster authorization failed.", entries=None)
    kinds = [c.entity_type for c in req.components]
    error = None
    if len(set(kinds)) != len(kinds):
        error = "Entity type cannot appear more than once in the filter."
    elif IP in kinds and len(kinds) > 1:
        error = "Invalid entity filter component combination, IP filter component should not " \
                "be used with User or ClientId filter component."
    elif any(c.match_type not in (EXACT, DEFAULT, ANY) for c in req.components):
        error = "Unknown match type"
    if error is not None:
        return R(version=v, throttle_time_ms=0, error_code=Err.INVALID_REQUEST,
                 error_message=error, entries=None)
    entries = [E(entity=[E.EntityData(entity_type=k, entity_name=n) for k, n in entity],
                 values=[E.ValueData(key=k, value=val) for k, val in sorted(values.items())])
               for entity, values in cluster.quotas.items()
               if _matches(dict(entity), req.components, req.strict)]
    return R(version=v, throttle_time_ms=0, error_code=0, error_message=None, entries=entries)
