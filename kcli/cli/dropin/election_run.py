"""kafka-leader-election's execution (its grammar: ``kcli.cli.dropin.election``): the elections
on kcli's operations, the tool's lines in its HashSet orders; an error is one line on stderr."""

from __future__ import annotations

from kcli.cli.dropin.common import Usage
from kcli.cli.dropin.run import Console, admin_for, plain_output
from kcli.errors import EXIT_FAILED, EXIT_USAGE, KcliError, UsageError


def execute(req, console: Console) -> int:
    from kcli.cli.dropin.election import parse_election_file
    from kcli.inputs import read_text

    p = req.parsed
    partitions = req.partitions
    try:
        if req.json_file is not None:
            partitions = parse_election_file(read_text(req.json_file, "--path-to-json-file"))
    except (Usage, UsageError) as exc:
        console.write("stderr", f"{exc.message}\n")
        return EXIT_USAGE
    command_config = p.value("command-config") or p.value("admin.config")
    out = plain_output(console)
    if p.has("admin.config"):
        out.line("Option --admin.config has been deprecated and will be removed in a future version. "
                 "Use --command-config instead.")
    try:
        with admin_for(req.bootstrap, command_config, console.timeout_ms, console) as admin:
            from kcli.ops.reassign import elect_as_asked

            results = elect_as_asked(admin, req.unclean, partitions)
    except KcliError as exc:
        console.write("stderr", f"{exc.message}\n")
        return console.failed(exc)
    return _report(out, console, results, "UNCLEAN" if req.unclean else "PREFERRED")


def _report(out, console: Console, results: dict, kind: str) -> int:
    """LeaderElectionCommand.electLeaders' lines: the results map (a HashMap, in the answer's
    order) split into HashSets of the elected and the not-needed, a HashMap of the failed."""
    from kcli.javaorder import topic_partitions
    from kcli.render.javatext import exception_with

    order = topic_partitions(list(results))
    ok = topic_partitions([tp for tp in order if results[tp] is None])
    noop = topic_partitions([tp for tp in order if results[tp] is not None and results[tp].code == 84])
    failed = topic_partitions([tp for tp in order if results[tp] is not None and results[tp].code != 84])
    if ok:
        out.line(f"Successfully completed leader election ({kind}) for partitions "
                 + ", ".join(f"{t}-{p}" for t, p in ok))
    if noop:
        out.line("Valid replica already elected for partitions " + ", ".join(f"{t}-{p}" for t, p in noop))
    for t, p in failed:
        e = results[(t, p)]
        out.line(f"Error completing leader election ({kind}) for partition: {t}-{p}: "
                 + exception_with(e.code, e.message, f"{e.name}: {e.message}"))
    if failed:
        console.write("stderr", f"{len(failed)} replica(s) could not be elected\n")
        return EXIT_FAILED
    return 0
