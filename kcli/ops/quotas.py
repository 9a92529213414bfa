"""Client quotas: the entity a command names (users, client ids, IPs, or their defaults), the
quotas to set checked before any request, described and altered (a dry run unless executed)."""

from __future__ import annotations

from kcli.admin import Admin
from kcli.errors import BrokerRejected, UsageError
from kcli.model import QuotaEntity

USER, CLIENT_ID, IP = "user", "client-id", "ip"
ORDER = {USER: 0, CLIENT_ID: 1, IP: 2}          # an entity's parts, and entities, in this order
# the keys each kind of entity takes (Kafka's QuotaConfig), True where the value is whole
CLIENT_KEYS = {"producer_byte_rate": True, "consumer_byte_rate": True,
               "request_percentage": False, "controller_mutation_rate": False}
IP_KEYS = {"connection_creation_rate": True}


def entity(user: str | None, user_default: bool, client: str | None, client_default: bool,
           ip: str | None, ip_default: bool) -> list[tuple[str, str | None]]:
    """The (type, name or None for the default) parts the flags name; UsageError when a flag
    pair contradicts itself or an IP is combined with a user or client."""
    parts: list[tuple[str, str | None]] = []
    for kind, flag, name, default in ((USER, "--user", user, user_default),
                                      (CLIENT_ID, "--client", client, client_default),
                                      (IP, "--ip", ip, ip_default)):
        if name is not None and default:
            raise UsageError(f"Give {flag} or {flag}-default, not both")
        if name is not None and not name.strip():
            raise UsageError(f"{flag} needs a name")
        if name is not None or default:
            parts.append((kind, name))
    if any(k == IP for k, _ in parts) and len(parts) > 1:
        raise UsageError("An IP's quotas stand alone: --ip does not combine with --user or --client")
    return parts


def parse_quotas(values: list[str], parts: list[tuple[str, str | None]]) -> dict[str, float]:
    """``key=value[,key=value]`` items as {key: value}, each key one the entity takes."""
    keys = IP_KEYS if parts and parts[0][0] == IP else CLIENT_KEYS
    out: dict[str, float] = {}
    for item in (x for value in values for x in value.split(",") if x.strip()):
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or key not in keys:
            raise UsageError(f"Unknown quota '{item.strip()}': use key=value with a key of "
                             f"{', '.join(sorted(keys))}")
        try:
            number = float(text)
        except ValueError:
            raise UsageError(f"Quota {key} needs a number, not '{text.strip()}'") from None
        if not number > 0 or number == float("inf") or (keys[key] and number != int(number)):
            raise UsageError(f"Quota {key} needs a positive {'whole ' if keys[key] else ''}number, "
                             f"not '{text.strip()}'")
        out[key] = number
    return out


def parse_removed(values: list[str], parts: list[tuple[str, str | None]]) -> list[str]:
    keys = IP_KEYS if parts and parts[0][0] == IP else CLIENT_KEYS
    names = [k.strip() for value in values for k in value.split(",") if k.strip()]
    for k in names:
        if k not in keys:
            raise UsageError(f"Unknown quota '{k}': use one of {', '.join(sorted(keys))}")
    return names


def describe(admin: Admin, parts: list[tuple[str, str | None]]) -> list[QuotaEntity]:
    """The entities that include every named part (none named: every entity), by name."""
    components = [(kind, "default" if name is None else "exact", name) for kind, name in parts]
    found = admin.describe_client_quotas(components, strict=False)
    for e in found:
        e.parts = sorted(e.parts, key=lambda p: ORDER.get(p[0], len(ORDER)))
    return sorted(found, key=lambda e: [(ORDER.get(k, len(ORDER)), "" if n is None else "\0" + n)
                                        for k, n in e.parts])


def alter(admin: Admin, parts: list[tuple[str, str | None]], set_: dict[str, float],
          remove: list[str], execute: bool) -> None:
    """Set and remove one entity's quotas; without ``execute`` the broker only validates."""
    if not parts:
        raise UsageError("Name the entity: --user, --client or --ip (or a -default of each)")
    if not set_ and not remove:
        raise UsageError("Nothing to change: give --set key=value or --delete key")
    both = sorted(set(set_) & set(remove))
    if both:
        raise UsageError(f"Quota {both[0]} is both set and deleted")
    error = admin.alter_client_quotas(parts, set_, remove, validate_only=not execute)
    if error is not None:
        raise BrokerRejected(error)


# -- kafka-configs --entity-type users|clients|ips (the drop-in's rules, ConfigCommand's words) ----

TOOL_TYPES = {"users": USER, "clients": CLIENT_ID, "ips": IP}
SCRAM_KEYS = ("SCRAM-SHA-256", "SCRAM-SHA-512")


def tool_components(types: list[str], names: list[str]) -> list[tuple[str, str, str | None]]:
    """ConfigCommand.getAllClientQuotasConfigs' filter: each type with its name (exact), "" (the
    default) or none given (any)."""
    return [(TOOL_TYPES[t], "any" if i >= len(names) else "default" if names[i] == "" else "exact",
             names[i] if i < len(names) and names[i] else None) for i, t in enumerate(types)]


def tool_check_keys(types: list[str], adds: dict[str, str], deletes: list[str]) -> dict[str, float]:
    """The quota values to set, parsed (Double.parseDouble), after ConfigCommand.alterConfig's
    checks of the names; UsageError in its words. SCRAM credentials are not kcli's."""
    from kcli.javaorder import strings

    kind = types[0]
    if kind == "ips":
        unknown = [k for k in [*adds, *deletes] if k not in IP_KEYS]
        if unknown:
            raise UsageError("Only connection quota configs can be added for 'ips' using --bootstrap-server. "
                             f"Unexpected config names: {', '.join(strings(dict.fromkeys(unknown)))}")
    else:
        for verb, names in (("added", list(adds)), ("deleted", deletes)):
            unknown = [k for k in names if k not in CLIENT_KEYS and k not in SCRAM_KEYS]
            scram = [k for k in names if k in SCRAM_KEYS]
            if kind == "clients" or len(types) == 2:
                if unknown or scram:
                    raise UsageError(f"Only quota configs can be {verb} for 'clients' using --bootstrap-server. "
                                     f"Unexpected config names: {','.join(strings(dict.fromkeys(unknown + scram)))}")
            elif unknown:
                raise UsageError(f"Only quota and SCRAM credential configs can be {verb} for 'users' using "
                                 f"--bootstrap-server. Unexpected config names: "
                                 f"{','.join(strings(dict.fromkeys(unknown)))}")
            elif scram:
                raise UsageError("kcli kafka-configs does not alter SCRAM credentials")
    values = {}
    for key, text in adds.items():
        try:
            values[key] = float(text.strip())
        except ValueError:
            raise UsageError(f"Cannot parse quota configuration value for {key}: {text}") from None
    return values


def tool_alter(admin: Admin, types: list[str], names: list[str], values: dict[str, float],
               deletes: list[str]) -> None:
    """ConfigCommand.alterQuotaConfigs: the entity's quotas now (a key to delete must be set),
    then one AlterClientQuotas."""
    from kcli.errors import OperationError

    parts = [(TOOL_TYPES[t], n or None) for t, n in zip(types, names)]
    now = admin.describe_client_quotas(tool_components(types, names), strict=True)
    current = now[0].values if now else {}
    missing = [k for k in deletes if k not in current]
    if missing:
        raise OperationError(f"Invalid config(s): {','.join(missing)}")
    error = admin.alter_client_quotas(parts, values, deletes, validate_only=False)
    if error is not None:
        raise BrokerRejected(error)


def tool_describe(admin: Admin, types: list[str], names: list[str]) -> list[QuotaEntity]:
    """ConfigCommand.describeQuotaConfigs' entities, in the broker's order."""
    return admin.describe_client_quotas(tool_components(types, names), strict=True)
