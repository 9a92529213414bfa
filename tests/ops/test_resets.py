"""Executing a plan, the pure parts: the rollback file is the exact undo (partitions without a
committed offset included, as -1), and a commit's outcome per partition from its answer and the
offsets read back. Execution against a broker (faults included) is in tests/cli/test_reset_safety.py."""

from kcli.ops.resets import execution
from kcli.ops.resets.rollback import rollback_csv
from kcli.model import BrokerError, GroupPlan, PartitionPlan
from kcli.offsets.csvfile import parse_csv

TIMEOUT = BrokerError(-185, "_TIMED_OUT", "Local: Timed out")
REFUSED = BrokerError(25, "UNKNOWN_MEMBER_ID", "Broker: Unknown member")


def plans():
    return [GroupPlan("g1", [PartitionPlan("g1", "t", 1, None, 0, 0, 20), PartitionPlan("g1", "t", 0, 10, 0, 0, 20)]),
            GroupPlan("g2", [PartitionPlan("g2", "t", 0, 5, 0, 0, 20)])]


def test_rollback_file_records_every_partition_and_reads_back_as_the_undo():
    text = rollback_csv(plans(), with_group=True)
    assert text == "g1,t,0,10\ng1,t,1,-1\ng2,t,0,5\n"
    assert parse_csv(text, ["g1", "g2"]) == {"g1": {("t", 0): 10, ("t", 1): -1}, "g2": {("t", 0): 5}}


def test_outcomes_from_answers_and_read_back():
    planned = {("t", 0): 3, ("t", 1): 3, ("t", 2): 3, ("t", 3): 3, ("t", 4): 3}
    before = {("t", 0): 9, ("t", 1): 9, ("t", 2): 9, ("t", 3): 9, ("t", 4): None}
    errors = {("t", 0): None, ("t", 1): REFUSED, ("t", 2): TIMEOUT, ("t", 3): TIMEOUT, ("t", 4): TIMEOUT}
    reread = {("t", 2): 3, ("t", 3): 9, ("t", 4): 7}
    got = execution.classify(planned, before, errors, reread)
    assert {tp: status for tp, (status, _) in got.items()} == {
        ("t", 0): execution.APPLIED, ("t", 1): execution.NOT_APPLIED, ("t", 2): execution.APPLIED,
        ("t", 3): execution.UNKNOWN, ("t", 4): execution.UNKNOWN}
    assert "read back is the new one" in got[("t", 2)][1]
    # Unanswered and read back unchanged: the broker may still apply it (late), so unknown.
    assert "read back is unchanged, but the commit may still be applied" in got[("t", 3)][1]
    unread = execution.classify(planned, before, errors, None)
    assert [unread[("t", p)][0] for p in (2, 3, 4)] == [execution.UNKNOWN] * 3
