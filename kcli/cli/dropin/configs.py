"""kafka-configs' command line (Apache Kafka 4.4's ConfigCommand, Java since 4.4) for topics, brokers, the
broker defaults and the client quotas of users, clients and ips: every option the tool has (its help
lists them all), its checks in the tool's order, and the ``--add-config`` / ``--delete-config``
grammars (``kcli.specs``). Pure."""

from __future__ import annotations

from kcli.cli.dropin import jopt
from kcli.cli.dropin.common import HELP, VERSION, Usage, start
from kcli.cli.dropin.jopt import REQUIRED, Opt
from kcli.cli.dropin.confignames import CONFIG_NAMES
from kcli.inputs import printable, topic_name_error
from kcli.datatypes import datatype


def _names(entity: str) -> str:
    return "".join(f"\n\t{n}" for n in CONFIG_NAMES[entity]) + "\n"


OPTIONS = [
    Opt("bootstrap-server", "The Kafka servers to connect to.", REQUIRED, describe="server to connect to"),
    Opt("bootstrap-controller", "The Kafka controllers to connect to.", REQUIRED,
        describe="controller to connect to"),
    Opt("command-config", "Property file containing configs to be passed to Admin Client. This is used only "
        "with --bootstrap-server option for describing and altering broker configs.", REQUIRED,
        describe="command config property file"),
    Opt("alter", "Alter the configuration for the entity."),
    Opt("describe", "List configs for the given entity."),
    Opt("all", "List all configs for the given entity, including static configs if available."),
    Opt("entity-type", "Type of entity (topics/clients/users/brokers/broker-loggers/ips/client-metrics/groups)",
        REQUIRED),
    Opt("entity-name", "Name of entity (topic name/client id/user principal name/broker id/ip/client "
        "metrics/group id)", REQUIRED),
    Opt("entity-default", "Default entity name for clients/users/brokers/ips (applies to corresponding "
        "entity type)"),
    Opt("add-config", "Key Value pairs of configs to add. Square brackets can be used to group values which "
        "contain commas: 'k1=v1,k2=[v1,v2,v2],k3=v3'. The following is a list of valid configurations: "
        + "".join(f"For entity-type '{e}': {_names(e)}" for e in CONFIG_NAMES)
        + "Entity types 'users' and 'clients' may be specified together to update config for clients of a "
        "specific user.", REQUIRED),
    Opt("add-config-file", "Path to a properties file with configs to add. See add-config for a list of "
        "valid configurations.", REQUIRED),
    Opt("delete-config", "config keys to remove 'k1,k2'", REQUIRED, separator=","),
    Opt("topic", "The topic's name.", REQUIRED),
    Opt("client", "The client's ID.", REQUIRED),
    Opt("client-defaults", "The config defaults for all clients."),
    Opt("user", "The user's principal name.", REQUIRED),
    Opt("user-defaults", "The config defaults for all users."),
    Opt("broker", "The broker's ID.", REQUIRED),
    Opt("broker-defaults", "The config defaults for all brokers."),
    Opt("broker-logger", "The broker's ID for its logger config.", REQUIRED),
    Opt("ip-defaults", "The config defaults for all IPs."),
    Opt("ip", "The IP address.", REQUIRED),
    Opt("group", "The group's ID.", REQUIRED),
    Opt("client-metrics", "The client metrics config resource name.", REQUIRED),
    HELP, VERSION,
]
ENTITY_FLAGS = {"topic": "topics", "client": "clients", "user": "users", "broker": "brokers",
                "broker-logger": "broker-loggers", "ip": "ips", "client-metrics": "client-metrics",
                "group": "groups"}
DEFAULT_FLAGS = {"client-defaults": "clients", "user-defaults": "users", "broker-defaults": "brokers",
                 "ip-defaults": "ips"}
ALLOWED = ("topics", "clients", "users", "brokers", "ips", "client-metrics", "groups", "broker-loggers")
SUPPORTED = ("topics", "brokers", "users", "clients", "ips")
QUOTA_TYPES = ("users", "clients", "ips")


@datatype
class ConfigsRequest:
    action: str                  # describe or alter
    entity_type: str             # topics, brokers, users, clients or ips (the first given)
    entity_name: str | None      # None: every entity (describe); "": the broker defaults
    parsed: jopt.Parsed
    bootstrap: str
    types: tuple = ()            # every entity type, in the tool's order (users and clients)
    names: tuple = ()            # their names ("": the default), as many as were given


def _entities(parsed: jopt.Parsed) -> tuple[list[str], list[str]]:
    """ConfigCommandOptions.entityTypes and entityNames, in the tool's order."""
    types = parsed.texts("entity-type")
    types += [t for flag, t in {**ENTITY_FLAGS, **DEFAULT_FLAGS}.items() if parsed.has(flag)]
    given_names = iter(parsed.texts("entity-name"))
    names = [next(given_names) if o == "entity-name" else "" for o in parsed.order
             if o in ("entity-name", "entity-default")]
    names += [parsed.texts(flag)[0] for flag in ENTITY_FLAGS if parsed.has(flag)]
    names += ["" for flag in DEFAULT_FLAGS if parsed.has(flag)]
    return types, names


def read(args: list[str]) -> ConfigsRequest:
    parsed = start(OPTIONS, args, "This tool helps to manipulate and describe entity config for a topic, client, "
                                  "user, broker, ip, client-metrics or group")
    has = parsed.has
    if has("alter") + has("describe") != 1:
        raise Usage("Command must include exactly one action: --describe, --alter")
    if has("describe"):
        for other in ("alter", "add-config", "delete-config"):
            if has(other):
                raise Usage(f'Option "[describe]" can\'t be used with option "[{other}]"')
    types, names = _entities(parsed)
    duplicates = sorted({t for t in types if types.count(t) > 1}, key=types.index)
    if duplicates:
        raise Usage(f"Duplicate entity type(s) specified: {','.join(duplicates)}")
    if not has("bootstrap-server") and not has("bootstrap-controller"):
        raise Usage("Either --bootstrap-server or --bootstrap-controller must be specified.")
    for t in types:
        if t not in ALLOWED:
            raise Usage(f"Invalid entity type {printable(t)}, the entity type must be one of "
                        f"{', '.join(ALLOWED)} with a --bootstrap-server or --bootstrap-controller argument")
    if not types:
        raise Usage("At least one entity type must be specified")
    if len(types) > 1 and set(types) != {"users", "clients"}:
        raise Usage("Only 'users' and 'clients' entity types may be specified together")
    if (has("entity-name") or has("entity-type") or has("entity-default")) and any(
            has(f) for f in (*ENTITY_FLAGS, *DEFAULT_FLAGS)):
        raise Usage("--entity-{type,name,default} should not be used in conjunction with specific entity flags")
    if has("bootstrap-server") and has("bootstrap-controller"):
        raise Usage("Only one of --bootstrap-server or --bootstrap-controller can be specified")
    named = any(names)
    if named and "topics" in types and (error := topic_name_error(names[0])):
        raise Usage(error)
    if named and "brokers" in types:
        for flag in ("entity-name", "broker"):
            for value in parsed.texts(flag)[:1]:
                if not (value.lstrip("+-").isdigit() and value.isascii()):
                    raise Usage(f"The entity name for {types[0]} must be a valid integer broker id, but it is: "
                                f"{printable(value)}")
    if named and "ips" in types:
        for flag in ("entity-name", "ip"):
            for value in parsed.texts(flag)[:1]:
                if not _ip_literal(value):
                    raise Usage(f"The entity name for {types[0]} must be a valid IP or resolvable host, "
                                f"but it is: {printable(value)}")
    if has("describe") and has("entity-default") and types[0] not in ("users", "clients", "brokers", "ips"):
        raise Usage(f"--entity-default must not be specified with --describe of {','.join(types)}")
    if has("alter"):
        if types[0] in ("users", "clients", "brokers", "ips"):
            if not names:
                raise Usage("An entity-name or default entity must be specified with --alter of users, clients, "
                            "brokers or ips")
        elif not named:
            raise Usage(f"An entity name must be specified with --alter of {','.join(types)}")
        if has("add-config") and has("add-config-file"):
            raise Usage("Only one of --add-config or --add-config-file must be specified")
        if not (has("add-config") or has("add-config-file") or has("delete-config")):
            raise Usage("At least one of --add-config, --add-config-file, or --delete-config must be specified "
                        "with --alter")
        if len(types) != len(names):
            raise Usage("An entity name must be specified for every entity type")
    if types[0] not in SUPPORTED:
        raise Usage(f"kcli kafka-configs supports the entity types topics, brokers (and the broker "
                    f"defaults), users, clients and ips, not {types[0]}")
    if has("bootstrap-controller"):
        raise Usage("kcli kafka-configs connects to brokers: use --bootstrap-server")
    try:
        bootstrap = parsed.value("bootstrap-server")
    except jopt.JoptError as exc:
        raise Usage(str(exc)) from None
    name = names[0] if names else None
    return ConfigsRequest("alter" if has("alter") else "describe", types[0], name, parsed, bootstrap,
                          tuple(types), tuple(names))


def _ip_literal(value: str) -> bool:
    """An IP address as written (kcli resolves no host name: Java's tool accepts one it can
    resolve, docs/dropins.md)."""
    import ipaddress

    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True
