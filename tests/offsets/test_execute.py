"""Executing a plan: rollback file before any commit; partial failure is exit 3 naming each
failed partition; nothing committed is exit 1 (a fake admin stands in for the cluster)."""

import pytest

from kcli.admin import groups as lib
from kcli.errors import OperationError, PartialFailure
from kcli.model import GroupPlan, PartitionPlan


class FakeAdmin:
    def __init__(self, fail):
        self.fail, self.calls = fail, []

    def alter_group_offsets(self, group, offsets):
        self.calls.append((group, dict(offsets)))
        return {tp: self.fail.get((group, *tp)) for tp in offsets}


def plans():
    return [GroupPlan("g1", [PartitionPlan("g1", "t", 0, 10, 0, 0, 20), PartitionPlan("g1", "t", 1, None, 0, 0, 20)]),
            GroupPlan("g2", [PartitionPlan("g2", "t", 0, 5, 0, 0, 20)])]


def test_rollback_then_one_commit_per_group(tmp_path):
    admin = FakeAdmin({})
    path = tmp_path / "rb.csv"
    result = lib.execute(admin, plans(), str(path), with_group=True)
    assert path.read_text() == "g1,t,0,10\ng2,t,0,5\n"     # partitions without a commit are left out
    assert [g for g, _ in admin.calls] == ["g1", "g2"]
    lib.raise_for_failures(result)


def test_partial_failure_is_exit_3_and_names_partitions(tmp_path):
    admin = FakeAdmin({("g1", "t", 1): "Broker: Unknown topic or partition"})
    result = lib.execute(admin, plans(), str(tmp_path / "rb.csv"), with_group=True)
    with pytest.raises(PartialFailure) as exc:
        lib.raise_for_failures(result)
    assert exc.value.exit_code == 3
    assert exc.value.message == ("1 of 3 partitions failed to commit (the others were reset): "
                                 "group 'g1' t-1: Broker: Unknown topic or partition")


def test_everything_failing_is_exit_1(tmp_path):
    fail = {(g, "t", p): "Broker: Not coordinator" for g in ("g1", "g2") for p in (0, 1)}
    result = lib.execute(FakeAdmin(fail), plans(), str(tmp_path / "rb.csv"), with_group=True)
    with pytest.raises(OperationError) as exc:
        lib.raise_for_failures(result)
    assert exc.value.exit_code == 1 and exc.value.message.startswith("No offsets were committed (3 of 3")
