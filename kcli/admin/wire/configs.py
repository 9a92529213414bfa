"""Configs on kcli's own connection: DescribeConfigs (with every synonym, which confluent-kafka's
dict of synonyms cannot hold) asked of the broker that owns each resource, and
IncrementalAlterConfigs for the cluster-wide broker defaults (confluent-kafka needs a name)."""

from __future__ import annotations

from kcli.admin.wire.base import WireBase, error_name
from kcli.errors import BrokerRejected, OperationError
from kcli.model import BrokerError, ConfigEntry, ResourceConfig

RESOURCE_TYPES = {"topic": 2, "broker": 4}     # ConfigResource.Type ids
# Kafka's ConfigSource ids (DescribeConfigs v1+), by the names the Java tools print.
CONFIG_SOURCES = ("UNKNOWN_CONFIG", "DYNAMIC_TOPIC_CONFIG", "DYNAMIC_BROKER_CONFIG",
                  "DYNAMIC_DEFAULT_BROKER_CONFIG", "STATIC_BROKER_CONFIG", "DEFAULT_CONFIG",
                  "DYNAMIC_BROKER_LOGGER_CONFIG", "CLIENT_METRICS_CONFIG", "GROUP_CONFIG")
DEFAULT_CONFIG = CONFIG_SOURCES.index("DEFAULT_CONFIG")


def config_node(rtype: str, name: str) -> int | None:
    """The broker a config resource must be asked of or changed on: a broker's own configs
    (and its loggers') only on that broker, as Kafka answers them; a topic's and the cluster-wide
    broker defaults (name "") on any (None: the bootstrap broker)."""
    return int(name) if rtype in ("broker", "broker_logger") and name != "" else None



class ConfigRequests(WireBase):
    def describe_configs(self, resources: list[tuple[str, str]], synonyms: bool = False,
                         refusals: list | None = None) -> list[ResourceConfig]:
        """Every config of each ("topic" | "broker", name) resource, in the broker's order (the
        Java tools' orders follow it), with synonyms when asked: one DescribeConfigs per broker
        asked (config_node), the results in the order of ``resources``. A resource this principal
        may not describe raises its NotAuthorized or, given ``refusals``, is left out and its
        NotAuthorized appended there."""
        Req = self.proto.DescribeConfigsRequest
        version = self._version(Req, "DescribeConfigs")
        by_node: dict[int | None, list[tuple[str, str]]] = {}
        for rtype, name in resources:
            by_node.setdefault(config_node(rtype, name), []).append((rtype, name))
        results = {}
        for node, asked in by_node.items():
            resp = self.send(Req(version=version, include_synonyms=synonyms and version >= 1,
                                 include_documentation=False,
                                 resources=[Req.DescribeConfigsResource(
                                     resource_type=RESOURCE_TYPES[rtype], resource_name=name,
                                     configuration_keys=None) for rtype, name in asked]), node)
            results.update({(r.resource_type, r.resource_name): r for r in resp.results})
        kinds = {code: kind for kind, code in RESOURCE_TYPES.items()}
        out = []
        for r in (results[(RESOURCE_TYPES[rtype], name)] for rtype, name in resources
                  if (RESOURCE_TYPES[rtype], name) in results):
            kind = kinds.get(r.resource_type, "topic")
            if r.error_code:
                refusal = self.refused(r.error_code, "DescribeConfigs", r.resource_name)
                if refusal is not None and refusals is not None:
                    refusals.append(refusal)
                    continue
                raise refusal or OperationError(
                    f"Cannot describe configs of {kind} '{r.resource_name}': "
                    f"{r.error_message or error_name(r.error_code)}")
            entries = [ConfigEntry(c.name, c.value, config_source(c.config_source),
                                   c.config_source == DEFAULT_CONFIG if version else c.is_default,
                                   c.is_sensitive, c.read_only,
                                   [(y.name, y.value, config_source(y.source))
                                    for y in (getattr(c, "synonyms", None) or [])])
                       for c in r.configs]
            out.append(ResourceConfig(kind, r.resource_name, entries))
        return out

    # -- IncrementalAlterConfigs for the broker defaults (confluent-kafka needs a name) --------
    def incremental_alter_configs(self, rtype: str, name: str, set_: dict[str, str], delete: list[str]) -> None:
        from kafka.protocol.admin.configs import IncrementalAlterConfigsRequest as Req

        version = self._version(Req, "IncrementalAlterConfigs")
        C = Req.AlterConfigsResource.AlterableConfig
        configs = [C(name=k, config_operation=1, value=None) for k in delete]
        configs += [C(name=k, config_operation=0, value=v) for k, v in set_.items()]
        resp = self.send(Req(version=version, validate_only=False, resources=[Req.AlterConfigsResource(
            resource_type=RESOURCE_TYPES[rtype], resource_name=name, configs=configs)]), config_node(rtype, name))
        for r in resp.responses:
            if r.error_code:
                from kafka.errors import for_code

                described = r.error_message or for_code(r.error_code).description
                raise self.refused(r.error_code, "IncrementalAlterConfigs", name) or BrokerRejected(BrokerError(
                    r.error_code, for_code(r.error_code).message, described))


def config_source(source: int) -> str:
    return CONFIG_SOURCES[source] if 0 <= source < len(CONFIG_SOURCES) else "UNKNOWN_CONFIG"
