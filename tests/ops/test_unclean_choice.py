"""The replica an unclean election gives a leaderless partition, as Kafka's controller chooses it
(PartitionChangeBuilder.electAnyLeader): a live in-sync replica first, else the first live
replica in assignment order; and what the dry run says such a choice may lose."""

from kcli.model import ElectionCandidate
from kcli.ops.reassign import unclean_choice


def test_a_live_isr_member_is_a_clean_choice_in_assignment_order():
    assert unclean_choice([1, 2, 3], isr=[3, 2], elr=None, live={2, 3}) == (2, True)
    assert unclean_choice([3, 1, 2], isr=[1, 2], elr=[], live={1, 2, 3}) == (1, True)


def test_the_dead_last_leader_in_the_isr_is_never_chosen():
    # the ISR of a leaderless partition often holds only its last leader, which is offline:
    # the old guess (isr[0]) named it; the controller elects the first live replica
    assert unclean_choice([1, 2], isr=[1], elr=None, live={2, 3}) == (2, False)
    assert unclean_choice([3, 2, 1], isr=[1], elr=[], live={2, 3}) == (3, False)


def test_the_elr_counts_as_in_sync_only_where_the_isr_is_empty():
    assert unclean_choice([1, 2, 3], isr=[], elr=[3], live={2, 3}) == (3, True)
    assert unclean_choice([1, 2, 3], isr=[1], elr=[3], live={2, 3}) == (2, False)


def test_no_live_replica_no_choice():
    assert unclean_choice([1, 2], isr=[1], elr=None, live={3}) == (None, False)
    assert unclean_choice([], isr=[], elr=None, live={1}) == (None, False)


def test_records_lost_at_least_is_what_a_live_replica_holds_beyond_the_new_leader():
    c = ElectionCandidate("t", 0, None, 2, False, [1], proposed_end=40, highest_end=55, highest_end_on=3)
    assert c.records_lost_at_least == 15
    assert ElectionCandidate("t", 0, None, 2, False, [1], 40, 40, 2).records_lost_at_least == 0
    assert ElectionCandidate("t", 0, None, 2, False, [1], None, 55, 3).records_lost_at_least is None
