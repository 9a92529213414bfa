"""The radar's rule for one group on one young partition (pure), and its memory file."""

from kcli.model import SuspectedLoss
from kcli.ops.expansions import _load, _save, classify


def test_classify():
    seen = SuspectedLoss(0, 4, 1000)
    assert classify(None, 0, 4, None) == ("EXPOSED", 4, None)
    assert classify(None, 3, 3, None) == ("EMPTY", 0, None)
    assert classify(5, 0, 9, None) == ("OK", 0, None)          # never seen without a commit
    assert classify(6, 0, 9, seen) == ("LOST?", 0, seen)      # jumped from none past 0..3
    assert classify(4, 0, 9, seen) == ("LOST?", 0, seen)
    assert classify(2, 0, 9, seen) == ("READING", 0, None)    # started at or before 2
    assert classify(6, 0, 9, SuspectedLoss(0, 0, 1000)) == ("OK", 0, None)


def test_memory_round_trip_and_garbage(tmp_path):
    path = str(tmp_path / "kcli" / "m.json")
    _save(path, {"g\tt\t2\t123": [0, 4, 99]})
    assert _load(path) == {"g\tt\t2\t123": [0, 4, 99]}
    (tmp_path / "bad.json").write_text('{"version": 1, "exposed": {"x": [1], "g\\tt\\t1\\t5": [0, 1, 2]}}')
    assert _load(str(tmp_path / "bad.json")) == {"g\tt\t1\t5": [0, 1, 2]}
    (tmp_path / "worse.json").write_text("not json")
    assert _load(str(tmp_path / "worse.json")) == {} and _load(str(tmp_path / "none.json")) == {}
