"""DescribeConfigs, AlterConfigs, IncrementalAlterConfigs for TOPIC and BROKER resources, and
IncrementalAlterConfigs and DescribeConfigs for GROUP resources (a share group's configs)."""

from __future__ import annotations

from kcli.broker import configs as cfg
from kcli.broker.acl import Op, ResourceType
from kcli.broker.apikeys import ALTER_CONFIGS, DESCRIBE_CONFIGS, INCREMENTAL_ALTER_CONFIGS
from kcli.broker.dispatch import RequestContext, handles
from kcli.broker.errors import BrokerError, Err
from kcli.broker.groups import coordinator_for
from kcli.broker.groups.coordinator import SHARE_GROUP_CONFIGS
from kcli.protocol import RESPONSES

TOPIC, BROKER, GROUP = 2, 4, 32
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3


def _authorize(ctx: RequestContext, resource_type: int, name: str, op: int) -> None:
    """A topic's configs need ``op`` on the topic, a broker's on the cluster (Kafka's answers)."""
    if resource_type == TOPIC and not ctx.may(op, name):
        raise BrokerError(Err.TOPIC_AUTHORIZATION_FAILED, "Topic authorization failed.")
    if resource_type == BROKER and not ctx.allowed(op, ResourceType.CLUSTER):
        raise BrokerError(Err.CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed.")


def _topic(cluster, name):
    topic = cluster.topics.get(name)
    if topic is None:
        raise BrokerError(Err.UNKNOWN_TOPIC_OR_PARTITION, f"The topic '{name}' does not exist.")
    return topic


def _broker_node(ctx: RequestContext, name: str) -> int | None:
    """The node a BROKER resource names (None for the cluster default, ``""``)."""
    if name == "":
        return None
    if name != str(ctx.node_id):
        raise BrokerError(Err.INVALID_REQUEST, f"Unexpected broker id, expected {ctx.node_id} "
                          f"or empty string, but received {name}")
    return ctx.node_id


def _entries(ctx: RequestContext, resource_type: int, name: str) -> list[cfg.ConfigEntry]:
    cluster = ctx.cluster
    if resource_type == TOPIC:
        topic = _topic(cluster, name)
        return [cfg.topic_entry(n, topic.configs, cluster.broker_configs, ctx.node_id, cluster.topic_configs)
                for n in cluster.topic_configs]
    if resource_type == BROKER:
        node = _broker_node(ctx, name)
        if node is None:
            return cluster.broker_configs.cluster_default_entries()
        return [cluster.broker_configs.entry(n, node) for n in cluster.broker_configs.names(node)]
    if resource_type == GROUP:
        return _group_entries(ctx, name)
    raise BrokerError(Err.INVALID_REQUEST, f"Unsupported resource type {resource_type}")


def _group_entries(ctx: RequestContext, name: str) -> list[cfg.ConfigEntry]:
    """A group's configs: its own (DYNAMIC_GROUP_CONFIG) over the broker's ``group.*`` one
    (static, else Kafka's default), as Kafka describes them."""
    coordinator = coordinator_for(ctx.cluster)
    own, config = coordinator.group_configs(name), coordinator.config
    broker = {"share.auto.offset.reset": "latest",
              "share.record.lock.duration.ms": str(config.share_record_lock_duration_ms),
              "share.delivery.count.limit": str(config.share_delivery_count_limit)}
    out = []
    for key in SHARE_GROUP_CONFIGS:
        source = cfg.STATIC_BROKER_CONFIG if f"group.{key}" in ctx.cluster.broker_configs.static else cfg.DEFAULT_CONFIG
        synonyms = ((cfg.Synonym(key, own[key], DYNAMIC_GROUP_CONFIG),) if key in own else ()) + (
            cfg.Synonym(key, broker[key], source),)
        kind = cfg.STRING if key == "share.auto.offset.reset" else cfg.INT
        out.append(cfg.ConfigEntry(key, synonyms[0].value, synonyms[0].source, False, kind, synonyms))
    return out


DYNAMIC_GROUP_CONFIG = 8


@handles(DESCRIBE_CONFIGS, 1, 4)
async def describe_configs(ctx: RequestContext, req):
    v = ctx.api_version
    R = RESPONSES[DESCRIBE_CONFIGS]
    Res = R.DescribeConfigsResult
    C = Res.DescribeConfigsResourceResult
    results = []
    for r in req.resources:
        try:
            _authorize(ctx, r.resource_type, r.resource_name, Op.DESCRIBE_CONFIGS)
            entries = _entries(ctx, r.resource_type, r.resource_name)
        except BrokerError as e:
            results.append(Res(error_code=e.code, error_message=e.message,
                               resource_type=r.resource_type, resource_name=r.resource_name,
                               configs=[]))
            continue
        if r.configuration_keys is not None:
            entries = [e for e in entries if e.name in r.configuration_keys]
        results.append(Res(
            error_code=0, error_message=None, resource_type=r.resource_type,
            resource_name=r.resource_name, configs=[
                C(name=e.name, value=e.value, read_only=e.read_only, config_source=e.source,
                  is_sensitive=False, config_type=e.type, documentation=None,
                  synonyms=[C.DescribeConfigsSynonym(name=s.name, value=s.value, source=s.source)
                            for s in e.synonyms] if req.include_synonyms else [])
                for e in entries]))
    return R(version=v, throttle_time_ms=0, results=results)


def _check_broker_config(name: str, value: str | None) -> None:
    d = cfg.BROKER_CONFIGS.get(name)
    if d is None or d.read_only:
        raise BrokerError(Err.INVALID_REQUEST,
                          f"Cannot update these configs dynamically: Set({name})")
    try:
        cfg.validate(cfg.BROKER_CONFIGS, name, value, "broker")
    except cfg.ConfigError as e:
        raise BrokerError(Err.INVALID_CONFIG, str(e)) from None


def _apply(ctx: RequestContext, resource_type: int, name: str, new: dict[str, str],
           validate_only: bool) -> None:
    """Replace the resource's overrides (topic) or dynamic configs (broker) with ``new``."""
    cluster = ctx.cluster
    if resource_type == TOPIC:
        _topic(cluster, name)
        cluster.validate_topic_configs(new)
        if not validate_only:
            cluster.set_topic_configs(name, new)
    elif resource_type == BROKER:
        _broker_node(ctx, name)
        for key, value in new.items():
            _check_broker_config(key, value)
        if not validate_only:
            cluster.broker_configs.dynamic[name] = new
            cluster.save()
    elif resource_type == GROUP:
        coordinator_for(cluster).set_group_configs(name, new, validate_only)
    else:
        raise BrokerError(Err.INVALID_REQUEST, f"Unsupported resource type {resource_type}")


def _current(ctx: RequestContext, resource_type: int, name: str) -> dict[str, str]:
    if resource_type == TOPIC:
        return dict(_topic(ctx.cluster, name).configs)
    if resource_type == GROUP:
        return coordinator_for(ctx.cluster).group_configs(name)
    return dict(ctx.cluster.broker_configs.dynamic.get(name, {}))


def _result(cls, r, error: BrokerError | None):
    return cls(error_code=error.code if error else 0, error_message=error.message if error else None,
               resource_type=r.resource_type, resource_name=r.resource_name)


@handles(ALTER_CONFIGS, 0, 2)
async def alter_configs(ctx: RequestContext, req):
    R = RESPONSES[ALTER_CONFIGS]
    out = []
    for r in req.resources:
        try:
            _authorize(ctx, r.resource_type, r.resource_name, Op.ALTER_CONFIGS)
            _apply(ctx, r.resource_type, r.resource_name, {c.name: c.value for c in r.configs},
                   req.validate_only)
            out.append(_result(R.AlterConfigsResourceResponse, r, None))
        except BrokerError as e:
            out.append(_result(R.AlterConfigsResourceResponse, r, e))
    return R(version=ctx.api_version, throttle_time_ms=0, responses=out)


def _incremental(ctx: RequestContext, r) -> dict[str, str]:
    configs = _current(ctx, r.resource_type, r.resource_name)
    defs = ctx.cluster.topic_configs if r.resource_type == TOPIC else cfg.BROKER_CONFIGS
    for c in r.configs:
        if c.config_operation == SET:
            configs[c.name] = c.value
        elif c.config_operation == DELETE:
            configs.pop(c.name, None)
        elif c.config_operation in (APPEND, SUBTRACT):
            d = defs.get(c.name)
            if d is None or d.type != cfg.LIST:
                op = "append" if c.config_operation == APPEND else "subtract"
                raise BrokerError(Err.INVALID_CONFIG,
                                  f"Config value {op} is not allowed for config key: {c.name}")
            if r.resource_type == TOPIC:
                current = ctx.cluster.topics[r.resource_name].config(c.name)
            else:
                current = configs.get(c.name, ctx.cluster.broker_config(c.name))
            items = [i for i in current.split(",") if i]
            given = [i.strip() for i in (c.value or "").split(",") if i.strip()]
            if c.config_operation == APPEND:
                items += [i for i in given if i not in items]
            else:
                items = [i for i in items if i not in given]
            configs[c.name] = ",".join(items)
        else:
            raise BrokerError(Err.INVALID_REQUEST,
                              f"Unknown config operation {c.config_operation}")
    return configs


@handles(INCREMENTAL_ALTER_CONFIGS, 0, 1)
async def incremental_alter_configs(ctx: RequestContext, req):
    R = RESPONSES[INCREMENTAL_ALTER_CONFIGS]
    out = []
    for r in req.resources:
        try:
            if r.resource_type not in (TOPIC, BROKER, GROUP):
                raise BrokerError(Err.INVALID_REQUEST,
                                  f"Unsupported resource type {r.resource_type}")
            _authorize(ctx, r.resource_type, r.resource_name, Op.ALTER_CONFIGS)
            _apply(ctx, r.resource_type, r.resource_name, _incremental(ctx, r), req.validate_only)
            out.append(_result(R.AlterConfigsResourceResponse, r, None))
        except BrokerError as e:
            out.append(_result(R.AlterConfigsResourceResponse, r, e))
    return R(version=ctx.api_version, throttle_time_ms=0, responses=out)
