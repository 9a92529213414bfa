"""kafka-share-groups' execution (its grammar: ``kcli.cli.dropin.share``): kafka-consumer-groups'
way of running an action (``kcli.cli.dropin.groups_run.group_tool``) with the share groups'
operations (``kcli.ops.share``) and the tool's layouts (``kcli.render.share``)."""

from __future__ import annotations

from kcli.cli.dropin.common import Usage
from kcli.cli.dropin.groups_run import Reset, exit_of, group_tool
from kcli.cli.dropin.run import Console

SHARE_ERROR = "\nError: Executing share group command failed due to "


def execute(req, console: Console) -> int:
    """kafka-share-groups: a value jopt cannot convert is the tool's runtime error line (stdout)."""
    return group_tool(req, console, _SHARE_ACTIONS, SHARE_ERROR, lambda exc: Usage(f"{SHARE_ERROR}{exc}", "stdout"))


class _List:
    @staticmethod
    def prepare(p):
        from kcli.ops import share as lib

        text = p.raw("state")
        return lib.parse_states(text) if text else None

    @staticmethod
    def execute(admin, p, states, out, console) -> int:
        from kcli.ops import share as lib
        from kcli.render import share as view

        out.write(view.plain_list(lib.listed(admin, states), p.has("state")))
        return 0


class _Describe:
    @staticmethod
    def execute(admin, p, prepared, out, console) -> int:
        from kcli.ops import share as lib
        from kcli.render import share as view

        verbose = p.has("verbose")
        groups = lib.described(admin, lib.group_ids(admin, p.values("group"), p.has("all-groups")))
        if not p.has("members") and not p.has("state"):
            views = [(d.group_id, lib.offsets(admin, d.group_id)) for d in groups]   # all read, then printed
            out.write("".join(view.plain_offsets(g, rows, verbose) for g, rows in views))
            return 0
        for d in groups:
            notice = view.empty_notice(d)
            if p.has("state"):
                if notice:
                    console.write(*notice)
                out.write(view.plain_state(d, verbose))
            else:
                if notice:
                    console.write(*notice)
                out.write(view.plain_members(d, verbose))
        return 0


class _Delete:
    @staticmethod
    def execute(admin, p, prepared, out, console) -> int:
        from kcli.ops import groups as groups_lib
        from kcli.ops import share as lib
        from kcli.render import share as view
        from kcli.render.javatext import exception_with

        ids = lib.group_ids(admin, p.values("group"), p.has("all-groups"))
        rest, failed = lib.delete_refusals(admin, ids)
        deleted = []
        for g, e in (groups_lib.delete(admin, rest) if rest else {}).items():
            if e is None:
                deleted.append(g)
            else:
                failed[g] = exception_with(e.code, e.message)
        out.write(view.plain_delete(deleted, failed))
        return 1 if failed else 0


def _one_group(p) -> str:
    """The tool's valueOf(group): a second --group is its runtime error line (stdout)."""
    from kcli.cli.dropin import jopt

    try:
        return p.value("group")
    except jopt.JoptError as exc:
        raise Usage(f"{SHARE_ERROR}{exc}", "stdout") from None


class _DeleteOffsets:
    @staticmethod
    def prepare(p):
        return _one_group(p), p.values("topic")

    @staticmethod
    def execute(admin, p, prepared, out, console) -> int:
        from kcli.ops import share as lib
        from kcli.render import share as view
        from kcli.render.javatext import exception_with, message_of

        group, topics = prepared
        error, per = lib.delete_offsets(admin, group, topics)
        top = error or next((e for e in per.values() if e is not None), None)
        line = None
        if top is not None and top.code not in (3, 29):   # UNKNOWN_TOPIC_OR_PARTITION, TOPIC_AUTHORIZATION_FAILED
            line = (message_of(top.code, top.message) if top.code in (24, 30, 68, 69)
                    else f"Encounter some unknown error: {exception_with(top.code, top.message)}")
        out.write(view.plain_delete_offsets(line, {t: None if e is None else message_of(e.code, e.message)
                                                   for t, e in per.items()}))
        return exit_of(lib.check_offsets_deleted, group, error, per)


class _ShareReset(Reset):
    """kafka-share-groups --reset-offsets: kafka-consumer-groups' reset (kcli's rules kept: the
    rollback file, skips named) on the group's share-partition start offsets
    (``kcli.ops.resets.ShareStore``). A group with members is refused first, as the tool does
    (its line on stderr, exit 1)."""
    error = SHARE_ERROR

    @staticmethod
    def plan_text(plans) -> str:
        """The tool's plan: a group with no partition to reset is left out (its map)."""
        from kcli.render import groups as view

        return view.plain_plan([plan for plan in plans if plan.partitions])

    @classmethod
    def prepare(cls, p):
        return _one_group(p), super().prepare(p)

    @classmethod
    def execute(cls, admin, p, prepared, out, console) -> int:
        from kcli.ops.resets import share_view

        group, prepared = prepared
        store = share_view(admin, [group], share_tool=True)
        d = store.describe_groups([group])[0]
        if d.exists and d.state not in ("Empty", "Dead"):
            console.write("stderr", f"Share group '{group}' is not empty.\n")
            return 1
        return super().execute(store, p, prepared, out, console)


_SHARE_ACTIONS = {"list": _List, "describe": _Describe, "delete": _Delete, "delete-offsets": _DeleteOffsets,
                  "reset-offsets": _ShareReset}
