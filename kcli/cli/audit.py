"""kcli audit timestamps: what timestamp-based operations will meet in the data (Spark)."""

from __future__ import annotations

from typing import List, Optional

import typer

from kcli.cli.context import out, state
from kcli.cli.params import Bounded
from kcli.errors import UsageError
from kcli.inputs import INT64_MAX
from kcli.specs import datetime_arg



def _position(text: str, flag: str, end: str) -> str | int:
    if text == end or text.lstrip().startswith("{"):
        return text
    return datetime_arg(flag, text, f"or {end}, or offsets as JSON {{topic: {{partition: offset}}}}")


def _time(text: str | None, flag: str) -> int | None:
    if text is None or text == "now":
        return None
    return datetime_arg(flag, text, "or now" if flag == "--reference" else "")


def timestamps(
    topic: List[str] = typer.Option(..., "--topic", "-t", help="Topic to scan (repeatable)."),
    from_: str = typer.Option("earliest", "--from",
                              help="earliest, a datetime/epoch ms, or offsets as JSON {topic: {partition: offset}}."),
    to: str = typer.Option("latest", "--to", help="latest, a datetime/epoch ms, or offsets as JSON."),
    before_max_ms: Optional[int] = typer.Option(None, "--before-max-ms", click_type=Bounded(0, INT64_MAX),
                                                help="KIP-937 past bound (default: the topic's config)."),
    after_max_ms: Optional[int] = typer.Option(None, "--after-max-ms", click_type=Bounded(0, INT64_MAX),
                                               help="KIP-937 future bound (default: the topic's config)."),
    reference: str = typer.Option("now", "--reference", help="The broker time the KIP-937 bounds are measured from."),
    target: Optional[str] = typer.Option(None, "--target",
                                         help="A reset target time: what would a reset to it replay or skip."),
    group: Optional[str] = typer.Option(None, "--group", "-g",
                                        help="Use the group's creation time (KIP-1282) as the target."),
    master: str = typer.Option("local[*]", "--master",
                               help="Spark master: local[*], local[2], spark://host:port, yarn, "
                                    "k8s://https://host:port (client mode; spark-submit's other options in "
                                    "PYSPARK_SUBMIT_ARGS)."),
    save: Optional[str] = typer.Option(None, "--save",
                                       help="Write the per-partition results as Parquet to this new directory."),
    source: str = typer.Option("auto", "--source", metavar="auto|python|jvm",
                               help="Which Kafka data source reads the records: python (kcli's), jvm (Spark's own "
                                    "connector, spark-sql-kafka-0-10), or auto: jvm when the connector is on Spark's "
                                    "classpath and takes every --command-config property."),
    jars: Optional[str] = typer.Option(None, "--jars",
                                       help="Comma-separated jars for Spark's classpath (spark.jars), e.g. the Kafka "
                                            "connector's (default: those scripts/provision-spark-kafka.sh cached)."),
):
    """Per partition and in total: records, min/max timestamp and the max's offset, records outside
    the KIP-937 bounds, out-of-order records and their culprits, what a reset to a time would
    replay or skip, and whether the broker's ListOffsets answers agree with the data.

    CULPRITS are the records that raised the running maximum beyond the topic's future bound or
    beyond the records after them: at or above every earlier timestamp, and above reference +
    after-max-ms or above a later record (one not older than the past bound). OUT-OF-ORDER counts
    the records below an earlier timestamp, the ones that follow a culprit: two records dated 30
    minutes ahead are 2 culprits, and the records after them, until the clock catches up, are
    out of order. The first 10 culprits are named (JSON: firstCulprits, schema
    kcli.audit-timestamps/v3)."""
    from kcli.render.audit import render_audit

    from kcli.ops.groups import check_group_ids
    from kcli.specs import check_topic_name

    if target is not None and group is not None:
        raise UsageError("--target can't be used with --group")
    from kcli.pipeline.audit import SOURCES, check_input

    if source not in SOURCES:
        raise UsageError(f"--source must be one of {', '.join(SOURCES)}, not {source!r}")
    for name in topic:
        check_topic_name(name)
    check_group_ids([group] if group is not None else [])
    st = state()
    opts_from, opts_to = _position(from_, "--from", "earliest"), _position(to, "--to", "latest")
    reference_ms, target_ms = _time(reference, "--reference"), _time(target, "--target")
    jar_list = [j for j in (jars or "").split(",") if j.strip()]
    check_input(opts_from, opts_to, save, jar_list)          # before any request (the group's)
    if group is not None:
        from kcli.ops.resets import group_start_time

        target_ms = group_start_time(st.admin(), group)
    from kcli.pipeline import AuditOptions, run_audit
    from kcli.pipeline.spark import log_path

    options = AuditOptions(bootstrap=st.settings.bootstrap_servers, topics=list(topic), from_=opts_from,
                           to=opts_to, before_max_ms=before_max_ms, after_max_ms=after_max_ms,
                           reference_ms=reference_ms, target_ms=target_ms,
                           client_config=dict(st.settings.properties), master=master, save_dir=save,
                           timeout_s=st.settings.timeout_s, admin=st.admin(), log=log_path(),
                           source=source, jars=jar_list)
    if st.verbose:
        out().note(f"Spark's console output: {options.log}")
    with out().progress("Records read") as progress:
        if progress is not None:
            # the python source reports records; Spark's connector only its tasks
            options.progress = lambda p: (progress(p.records_read or 0, p.records_total) if p.records_total
                                          else progress(p.tasks_done, p.tasks_total or None))
        result = run_audit(options)
    if st.verbose:
        out().note(f"Source: {result.source}" + (" (Spark's Kafka connector)" if result.source == "jvm"
                                                 else " (kcli's kcli-kafka data source)"))
    render_audit(out(), result)
