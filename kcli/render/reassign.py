"""Reassignment and election views: the Java tool's sentences (plain and table), or JSON
(schema kcli.reassign/v1, kcli.elect/v1)."""

from __future__ import annotations

from kcli.render.output import Output, json_document


def _tp(tp) -> str:
    return f"{tp[0]}-{tp[1]}"


def render_generate(out: Output, current_json: str, proposed_json: str) -> None:
    if out.format == "json":
        import json

        out.json(json_document("reassign-generate", current=json.loads(current_json),
                               proposed=json.loads(proposed_json)))
        return
    out.line("Current partition replica assignment")
    out.line(current_json)
    out.line()
    out.line("Proposed partition reassignment configuration")
    out.line(proposed_json)


def render_started(out: Output, rollback: str, results: dict, throttle: int | None) -> None:
    if out.format == "json":
        out.json(json_document("reassign-execute", rollbackFile=rollback, throttle=throttle,
                               partitions=[{"partition": _tp(tp), "error": e.message if e else None}
                                           for tp, e in sorted(results.items())]))
        return
    out.line(f"Save this to use as the --reassignment-json-file option during rollback: {rollback}")
    if throttle is not None:
        out.line(f"The inter-broker throttle limit was set to {throttle} B/s")
    started = [tp for tp, e in sorted(results.items()) if e is None]
    if started:
        out.line("Successfully started partition reassignment(s) for " + ",".join(map(_tp, started)))
    for tp, e in sorted(results.items()):
        if e is not None:
            out.line(f"Error reassigning partition {_tp(tp)}: {e.name}: {e.message}")


def progress_lines(states: dict, plan: dict, java: bool = False) -> list[str]:
    """A line per planned partition: kafka-reassign-partitions --verify's sentence (``java``), or
    with the replicas now and which adding ones are in sync yet."""
    lines = []
    for tp, (state, replicas, in_sync) in sorted(states.items()):
        if state == "in progress":
            detail = "" if java else f" (replicas {','.join(map(str, replicas))}, adding in sync: " \
                                     f"{','.join(map(str, in_sync)) or 'none yet'})"
            lines.append(f"Reassignment of partition {_tp(tp)} is still in progress{detail}.")
        elif state == "complete":
            lines.append(f"Reassignment of partition {_tp(tp)} is completed.")
        else:
            lines.append(f"There is no active reassignment of partition {_tp(tp)}, but replica set is "
                         f"{','.join(map(str, replicas))} rather than {','.join(map(str, plan[tp]))}.")
    return lines


def render_verify(out: Output, states: dict, plan: dict, cleared: list[int] | None, topics: list[str]) -> None:
    """--verify's report; ``-o plain`` is kafka-reassign-partitions --verify's text."""
    if out.format == "json":
        out.json(json_document("reassign-verify", partitions=[
            {"partition": _tp(tp), "state": s, "replicas": r, "addingInSync": a}
            for tp, (s, r, a) in sorted(states.items())], throttlesCleared=cleared is not None))
        return
    out.line("Status of partition reassignment:")
    for line in progress_lines(states, plan, java=out.format == "plain"):
        out.line(line)
    out.line()
    if cleared is not None:
        for line in clearing_lines(cleared, topics):
            out.line(line)


def clearing_lines(brokers: list[int], topics: list[str]) -> list[str]:
    """kafka-reassign-partitions' two lines as it clears the throttles: the brokers and the topics
    in the order of its HashSets."""
    from kcli.javaorder import integers, strings

    ids, names = integers(dict.fromkeys(brokers)), strings(dict.fromkeys(topics))
    return [f"Clearing broker-level throttles on broker{'' if len(ids) == 1 else 's'} " + ",".join(map(str, ids)),
            f"Clearing topic-level throttles on topic{'' if len(names) == 1 else 's'} " + ",".join(names)]


def render_list(out: Output, ongoing: list) -> None:
    """--list: kafka-reassign-partitions --list's lines (every format but JSON)."""
    if out.format == "json":
        out.json(json_document("reassign-list", reassignments=[
            {"partition": f"{r.topic}-{r.partition}", "replicas": r.replicas, "adding": r.adding,
             "removing": r.removing} for r in ongoing]))
        return
    if not ongoing:
        out.line("No partition reassignments found.")
        return
    out.line("Current partition reassignments:")
    for r in sorted(ongoing, key=lambda r: (r.topic, r.partition)):
        out.line(f"{r.topic}-{r.partition}: replicas: {','.join(map(str, r.replicas))}."
                 + (f" adding: {','.join(map(str, r.adding))}." if r.adding else "")
                 + (f" removing: {','.join(map(str, r.removing))}." if r.removing else ""))


def render_cancelled(out: Output, results: dict) -> None:
    if out.format == "json":
        out.json(json_document("reassign-cancel", partitions=[
            {"partition": _tp(tp), "error": e.message if e else None} for tp, e in sorted(results.items())]))
        return
    done = [tp for tp, e in sorted(results.items()) if e is None]
    if done:
        out.line("Successfully cancelled partition reassignment(s) for: " + ",".join(map(_tp, done)))
    for tp, e in sorted(results.items()):
        if e is not None:
            out.line(f"Could not cancel the reassignment of {_tp(tp)}: {e.name}: {e.message}")


def _risk(c) -> str:
    """What an unclean choice may lose, as kcli can prove it: the new leader's log end, the
    records a live replica holds beyond it, the offline in-sync replicas (what they hold beyond
    it is not known)."""
    if c.proposed is None:
        return " (no live replica)"
    if c.clean:
        return ""
    text = (" (out of sync: may lose " + ("the records after its log end offset "
            f"{c.proposed_end}" if c.proposed_end is not None else "records (its log end offset is not known)"))
    lost = c.records_lost_at_least
    if lost:
        text += f"; at least {lost}: replica {c.highest_end_on} ends at {c.highest_end}"
    if c.at_risk_on:
        text += (f"; replica {','.join(map(str, c.at_risk_on))} offline: "
                 "what it holds beyond that is not known")
    return text + ")"


def render_election(out: Output, candidates: list, results: dict | None, unclean: bool) -> None:
    kind = "unclean" if unclean else "preferred"
    a_kind = "an unclean" if unclean else "a preferred"
    if out.format == "json":
        errors = {tp: e.message for tp, e in (results or {}).items() if e is not None}
        partitions = []
        for c in candidates:
            entry = {"partition": f"{c.topic}-{c.partition}", "leader": c.leader, "proposedLeader": c.proposed}
            if unclean:
                risky = c.proposed is not None and not c.clean
                entry.update({"inSync": c.clean if c.proposed is not None else None,
                              "mayLoseRecordsOf": c.at_risk_on if risky else None,
                              "newLeaderLogEndOffset": c.proposed_end,
                              "highestLogEndOffset": c.highest_end, "highestLogEndOffsetOn": c.highest_end_on,
                              "recordsLostAtLeast": c.records_lost_at_least})
            entry["error"] = errors.get((c.topic, c.partition))
            partitions.append(entry)
        out.json(json_document("elect", election=kind, executed=results is not None, partitions=partitions))
        return
    if not candidates:
        out.line(f"No partition needs {a_kind} leader election.")
        return
    for c in candidates:
        fmt = lambda n: "none" if n is None else str(n)  # noqa: E731
        line = f"{c.topic}-{c.partition}: leader {fmt(c.leader)} -> {'none' if c.proposed is None else c.proposed}"
        line += _risk(c) if unclean else ""
        if results is not None:
            e = results.get((c.topic, c.partition))
            line += " elected" if e is None else f" not elected: {e.name}: {e.message}"
        out.line(line)
    if results is None:
        out_of_sync = sum(1 for c in candidates if c.proposed is not None and not c.clean)
        out.line(f"Dry run: {len(candidates)} partition(s) would get {a_kind} leader"
                 + (f", {out_of_sync} of them an out-of-sync one" if out_of_sync else "")
                 + "; add --execute to elect them.")
