"""``check broker``: one row per rule (RULE, KIP, STATUS, EVIDENCE) in every format, or with
``--dry-run`` one row per action it would take; JSON schema ``kcli.check-broker/v1``."""

from __future__ import annotations

from kcli.model import BrokerCheckReport
from kcli.render.output import Output, Table, json_document

COLUMNS = ["RULE", "KIP", "STATUS", "EVIDENCE"]
DRY_RUN_COLUMNS = ["ACTION", "KIND", "NAME", "DETAIL"]


def counts(r: BrokerCheckReport) -> dict[str, int]:
    return {s: sum(1 for x in r.rules if x.status == s.upper()) for s in ("pass", "fail", "unsupported")}


def render_report(out: Output, r: BrokerCheckReport) -> None:
    n = counts(r)
    if out.format == "json":
        out.json(json_document(
            "check-broker", dryRun=False, topic=r.topic, group=r.group,
            rules=[{"rule": x.rule, "kip": x.kip, "status": x.status, "evidence": x.evidence, "data": x.data}
                   for x in r.rules],
            passed=n["pass"], failed=n["fail"], unsupported=n["unsupported"],
            created=r.created, deleted=r.deleted, kept=r.kept, savedTo=r.saved, baseline=r.baseline))
        return
    table = Table(list(COLUMNS))
    table.rows = [[x.rule, x.kip, x.status, x.evidence] for x in r.rules]
    out.view(table)
    if out.format == "table":
        out.prose(f"{n['pass']} passed, {n['fail']} failed, {n['unsupported']} unsupported")
    if r.kept:
        out.note(f"Kept for --baseline: {', '.join(r.kept)} (saved to {r.saved})")


def render_dry_run(out: Output, name: str, actions: list[dict]) -> None:
    if out.format == "json":
        out.json(json_document("check-broker", dryRun=True, topic=name, group=name, actions=actions))
        return
    table = Table(list(DRY_RUN_COLUMNS))
    table.rows = [[a["action"], a["kind"], a["name"], a["detail"]] for a in actions]
    out.view(table)
    if out.format == "table":
        out.prose("Dry run: nothing was created.")
