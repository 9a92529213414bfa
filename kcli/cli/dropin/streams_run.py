"""kafka-streams-groups' execution (its grammar: ``kcli.cli.dropin.streams``): kafka-consumer-groups'
way of running an action (``kcli.cli.dropin.groups_run``) with this tool's actions and words."""

from __future__ import annotations

from kcli.cli.dropin.common import Usage
from kcli.cli.dropin.groups_run import DeleteOffsets, Reset, exit_of, group_tool
from kcli.cli.dropin.run import Console
from kcli.errors import UsageError

STREAMS_ERROR = "\nError: Executing streams group command failed due to "


def execute(req, console: Console) -> int:
    """kafka-streams-groups: a value jopt cannot convert is a usage error there (stderr)."""
    return group_tool(req, console, _STREAMS_ACTIONS, STREAMS_ERROR, lambda exc: Usage(str(exc)))


STREAMS_STATES = ("Assigning", "Empty", "Dead", "NotReady", "Stable", "Reconciling")   # the tool's order


class _StreamsList:
    @staticmethod
    def prepare(p):
        text = p.raw("state")
        if not text:
            return None
        by_upper = {s.upper(): s for s in STREAMS_STATES}
        states = {by_upper.get(s.strip().upper()) for s in text.split(",")}
        if None in states:
            raise UsageError(f"Invalid state list '{text}'. Valid states are: {', '.join(STREAMS_STATES)}")
        return states

    @staticmethod
    def execute(admin, p, states, out, console) -> int:
        from kcli.ops import streams as lib
        from kcli.render import streams as view

        out.write(view.plain_list(lib.listed(admin, states), p.has("state")))
        return 0


def _streams_ids(admin, p) -> list[str]:
    from kcli.ops import streams as lib

    if p.has("all-groups"):
        return [g.group_id for g in lib.listed(admin)]
    return p.values("group")


class _StreamsDescribe:
    @staticmethod
    def execute(admin, p, prepared, out, console) -> int:
        from kcli.ops import streams as lib
        from kcli.render import streams as view

        verbose, code = p.has("verbose"), 0
        for gid in _streams_ids(admin, p):      # one at a time, as the tool: a missing group ends it
            if p.has("topology"):
                code = max(code, _topology(admin, gid, out))
                continue
            d = lib.described(admin, gid)
            if p.has("state"):
                out.write(view.java_notice(d) + view.plain_state(d, verbose))
                continue
            notice = view.java_notice(d) if d.members and d.state != "Dead" else ""
            if p.has("members"):
                out.write(notice + view.plain_java_members(d, verbose))
            else:
                rows = lib.task_offsets(admin, d) if d.members else []
                out.write(notice + view.plain_task_offsets(d, rows, verbose))
        return code


def _topology(admin, gid: str, out) -> int:
    """--topology: the broker's answer on its topology description (a description itself is not
    printed: kcli has no formatter for it yet, and says so)."""
    from kcli.ops import streams as lib

    status = lib.topology_status(admin, gid)
    words = {"NOT_STORED": f"No topology description is stored for streams group '{gid}'.",
             "ERROR": f"The broker failed to fetch the topology description for streams group '{gid}'. "
                      "See the broker logs for details.",
             "AVAILABLE": f"The topology description of streams group '{gid}' is stored, but kcli does not "
                          "print topology descriptions."}
    out.write("\nError: " + words.get(status, f"No topology description is available for streams group "
                                                f"'{gid}' (status: {status}).") + "\n")
    return 1


class _StreamsReset(Reset):
    """kafka-streams-groups --reset-offsets: kafka-consumer-groups' reset (kcli's rules kept) on
    the group's input topics; a value jopt cannot convert is a usage error; then the internal
    topics --delete-internal-topic / --delete-all-internal-topics name are deleted."""
    error = STREAMS_ERROR
    streams_tool = True          # --all-groups: the streams groups; only --input-topic partitions committed

    @classmethod
    def conversion(cls, exc) -> Usage:
        return Usage(str(exc))

    @classmethod
    def scope(cls, p) -> tuple[list[str], bool]:
        if not (p.has("input-topic") or p.has("all-input-topics") or p.has("from-file")):
            raise Usage("One of the reset scopes should be defined: --all-input-topics, --input-topic.")
        return ([] if p.has("all-input-topics") else p.values("input-topic")), p.has("all-input-topics")

    @staticmethod
    def plan_text(plans) -> str:
        from kcli.render import streams as view

        return view.plain_plan(plans)

    @staticmethod
    def after(admin, p, result, console) -> bool:
        if not result.executed or not (p.has("delete-all-internal-topics") or p.has("delete-internal-topic")):
            return False
        from kcli.ops import streams as lib
        from kcli.render.javatext import exception_text

        names = None if p.has("delete-all-internal-topics") else p.values("delete-internal-topic")
        failed, kept = lib.delete_after_reset(admin, result, names)
        for g, why in kept.items():              # kcli's note: the tool would have stopped before
            console.write("stderr", f"Internal topics of group '{g}' kept: {why}\n")
        for g, by_topic in failed.items():
            errors = list(by_topic.values())
            if any(e.code == UNKNOWN_TOPIC_OR_PARTITION for e in errors):
                console.write("stdout", f"\nError: Deleting internal topics for group '{g}' failed because the "
                                        "topics do not exist.\n")
            else:
                console.write("stdout", f"\nError: Deleting internal topics for group '{g}' failed due to "
                                        f"{exception_text(errors[0].code, errors[0].message)}\n")
        return bool(failed or kept)


class _StreamsDelete:
    @staticmethod
    def execute(admin, p, prepared, out, console) -> int:
        from kcli.ops import groups as groups_lib
        from kcli.ops import streams as lib
        from kcli.render import streams as view
        from kcli.render.javatext import exception_text

        ids = list(dict.fromkeys(_streams_ids(admin, p)))
        results: dict[str, str | None] = dict(lib.delete_refusals(admin, ids))
        rest = [g for g in ids if g not in results]
        internal = lib.internal_topics(admin, rest) if rest and p.has("delete-all-internal-topics") else {}
        for g, e in (groups_lib.delete(admin, rest) if rest else {}).items():
            results[g] = None if e is None else exception_text(e.code, e.message)
        deleted = [g for g in internal if results.get(g) is None]
        failed = lib.delete_topics_of(admin, {g: internal[g] for g in deleted})
        out.write("".join(f"Failed to delete internal topic: {t}\n" for errors in failed.values() for t in errors))
        out.write(view.plain_delete(results))
        if internal and deleted:
            out.write(view.plain_internal_deletion(deleted, {g: exception_text(e.code, e.message) for g, errors
                                                             in failed.items() for e in list(errors.values())[:1]}))
        return 1 if any(e is not None for e in results.values()) or failed else 0


class _StreamsDeleteOffsets(DeleteOffsets):
    @staticmethod
    def prepare(p):
        from kcli.specs import parse_topic_spec

        topics = p.values("input-topic")
        for spec in topics:
            parse_topic_spec(spec)
        return p.value("group"), topics

    @staticmethod
    def execute(admin, p, prepared, out, console) -> int:
        from kcli.ops import groups as lib
        from kcli.ops import streams as streams_lib
        from kcli.render import groups as view

        group, topics = prepared
        if p.has("all-input-topics"):
            topics = [f"{t}:{n}" for t, n in streams_lib.input_partitions(admin, group)]
        group_error, rows = lib.delete_offsets(admin, group, topics)
        view.render_delete_offsets(out, group, group_error, rows)
        return exit_of(lib.check_offsets_deleted, group, group_error, rows)


UNKNOWN_TOPIC_OR_PARTITION = 3


_STREAMS_ACTIONS = {"list": _StreamsList, "describe": _StreamsDescribe, "reset-offsets": _StreamsReset,
                    "delete": _StreamsDelete, "delete-offsets": _StreamsDeleteOffsets}
