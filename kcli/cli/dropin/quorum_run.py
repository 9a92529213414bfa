"""kafka-metadata-quorum's execution (its grammar: ``kcli.cli.dropin.quorum``): describe --status
and --replication on ``kcli.ops.cluster`` (DescribeCluster, DescribeQuorum), printed as
MetadataQuorumCommand prints them (``kcli.render.cluster``); its failures as the tool words them
(the exception's message on stderr, exit 1). kcli connects to brokers only, and sends neither
AddRaftVoter nor RemoveRaftVoter: --bootstrap-controller, add-controller and remove-controller
are refused in one line (exit 1) before any request."""

from __future__ import annotations

from kcli.cli.dropin.run import Console, admin_for
from kcli.errors import EXIT_FAILED, KcliError

NOT_SENT = {"add-controller": "AddRaftVoter", "remove-controller": "RemoveRaftVoter"}


def execute(req, console: Console) -> int:
    from kcli.ops import cluster as lib
    from kcli.render.cluster import RelativeTimeError, quorum_replication, quorum_status

    if req.get("bootstrap_controller") is not None:
        console.write("stderr", "kcli kafka-metadata-quorum connects to brokers only: give --bootstrap-server "
                                "(a broker forwards DescribeQuorum to the controllers)\n")
        return EXIT_FAILED
    if req.command in NOT_SENT:
        console.write("stderr", f"kcli kafka-metadata-quorum cannot {req.command.replace('-controller', '')} "
                                f"controllers: kcli does not send {NOT_SENT[req.command]} (KIP-853); use Apache's "
                                "kafka-metadata-quorum\n")
        return EXIT_FAILED
    try:
        with admin_for(req.bootstrap, req.command_config, console.timeout_ms, console) as admin:
            if req.get("status"):
                cluster_id, quorum = lib.quorum_status(admin)
                text = quorum_status(cluster_id, quorum)
            else:
                text = quorum_replication(lib.quorum(admin), bool(req.get("human_readable")))
    except RelativeTimeError as exc:
        console.write("stderr", f"{exc}\n")
        return EXIT_FAILED
    except KcliError as exc:
        console.write("stderr", f"{exc.message}\n")
        return console.failed(exc)
    console.write("stdout", text)
    return 0
