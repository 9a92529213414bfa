"""kafka-delete-records' execution (its grammar: ``kcli.cli.dropin.records``): the offset file
read as the tool reads it, then DeleteRecords at once (the Java tool has no dry run, and the
drop-in keeps its behaviour: ``kcli delete-records`` has the dry run and the unread-records
refusal), each partition's low watermark or error in the tool's lines, sorted (the tool prints
an immutable map's order, another in each JVM). A bad file is the tool's message on stderr, exit
2; a partition that failed, exit 1 (3 when others were deleted)."""

from __future__ import annotations

from kcli.cli.dropin.common import Usage
from kcli.cli.dropin.run import Console, admin_for
from kcli.errors import EXIT_USAGE, KcliError, UsageError


def execute(req, console: Console) -> int:
    from kcli import javaorder
    from kcli.cli.dropin.records import parse_offsets
    from kcli.inputs import printable, read_text

    try:
        text = read_text(req.offset_file, "--offset-json-file")
    except UsageError:                  # the tool's words, the name on one line
        console.write("stderr", f"Unable to read file {printable(req.offset_file)}\n")
        return EXIT_USAGE
    try:
        entries = parse_offsets(text)
        offsets: dict[tuple[str, int], int] = {}
        duplicates = []
        for topic, partition, offset in entries:
            if (topic, partition) in offsets:
                duplicates.append((topic, partition))
            offsets.setdefault((topic, partition), offset)
    except Usage as exc:
        console.write("stderr", exc.message + "\n")
        return EXIT_USAGE
    if duplicates:
        shown = ",".join(f"{t}-{p}" for t, p in javaorder.topic_partitions(dict.fromkeys(duplicates)))
        console.write("stderr", f"Offset json file contains duplicate topic partitions: {shown}\n")
        return EXIT_USAGE
    from kcli.ops import records as lib
    from kcli.render.records import render_dropin

    console.write("stdout", "Executing records delete operation\n")
    try:
        with admin_for(req.bootstrap, req.command_config, console.timeout_ms, console) as admin:
            results = lib.delete_before(admin, {tp: offsets[tp] for tp in sorted(offsets)})
    except KcliError as exc:
        console.write("stderr", f"Error: {exc.message}\n")
        return console.failed(exc)
    console.write("stdout", render_dropin(results))
    try:
        lib.check_delete_results(results)
    except KcliError as exc:
        return exc.exit_code
    return 0
