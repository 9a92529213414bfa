"""Configs as kafka-configs describes them (``--describe`` of topics, brokers and the broker
defaults): which entities, in the tool's order, and which of them do not exist."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kcli import javaorder
from kcli.model import ResourceConfig
from kcli.ops.failures import change

if TYPE_CHECKING:
    from kcli.admin import Admin


def describe(admin: Admin, resources: list[tuple[str, str]]) -> list[ResourceConfig]:
    """The configs of each (resource type, name), in the order given."""
    return admin.describe_configs(resources)


def describe_for_tool(admin: Admin, rtype: str, name: str | None,
                      show_all: bool) -> list[tuple[str, ResourceConfig | None]]:
    """(entity name, its configs) per entity, None for a named entity that does not exist (the
    tool says so and describes nothing): the one named, or every topic (the admin client's set
    of names), or every broker then the defaults (name "")."""
    if name is not None:
        if not show_all and name != "" and not _exists(admin, rtype, name):
            return [(name, None)]
        names = [name]
    elif rtype == "topic":
        every = admin.topic_names()
        names = javaorder.strings(every)
    else:
        names = [str(b) for b in admin.broker_ids()] + [""]
    return list(zip(names, admin.describe_configs([(rtype, n) for n in names])))


def _exists(admin: Admin, rtype: str, name: str) -> bool:
    if rtype == "topic":
        return name in admin.topic_names()
    return name in {str(b) for b in admin.broker_ids()}


def alter(admin: Admin, rtype: str, name: str, set_: dict[str, str], delete: list[str]) -> None:
    """Incremental: ``set_`` and ``delete`` (name "": the cluster-wide broker defaults). Without
    an answer the change may or may not be applied: OutcomeUnknown (exit 3)."""
    with change(f"the config change of {rtype} '{name}'" if name else f"the {rtype} defaults' config change"):
        admin.alter_configs(rtype, name, set_, delete)
