"""kafka-reassign-partitions' throttles (ReassignPartitionsCommand.calculateProposedMoveMap and its
leader/follower lists), pure: the sources of a move, a move in progress kept throttled, and the
lists in Java's TreeSet order of "partition:broker" strings."""

from kcli.model import Reassignment
from kcli.ops.reassign import THROTTLED_REPLICAS, throttles

LEADER, FOLLOWER = THROTTLED_REPLICAS


def test_leaders_are_the_replicas_now_followers_the_ones_added():
    configs, brokers = throttles({("t", 0): [3, 2], ("t", 1): [2, 3]}, {("t", 0): [1], ("t", 1): [2]})
    assert configs == {"t": {LEADER: "0:1,1:2", FOLLOWER: "0:2,0:3,1:3"}}
    assert brokers == [1, 2, 3]


def test_the_lists_are_in_treeset_order_of_their_strings():
    configs, _ = throttles({("t", 10): [2], ("t", 2): [3]}, {("t", 10): [1], ("t", 2): [1]})
    assert configs["t"] == {LEADER: "10:1,2:1", FOLLOWER: "10:2,2:3"}


def test_a_move_in_progress_keeps_its_sources_and_stays_throttled():
    """--additional: partition 0 is moving 1 -> 3 already; the new plan moves it to 2 from the
    replicas it started on, and the other topic's move in progress keeps its throttles."""
    moving = [Reassignment("t", 0, [3, 1], [3], [1]), Reassignment("u", 4, [5, 6], [6], [])]
    configs, brokers = throttles({("t", 0): [2]}, {("t", 0): [3, 1]}, moving)
    assert configs == {"t": {LEADER: "0:1", FOLLOWER: "0:2"}, "u": {LEADER: "4:5", FOLLOWER: "4:6"}}
    assert brokers == [1, 2, 5, 6]
