"""kcli lag serve's collector without a cluster: a collection that cannot connect leaves no
snapshot, counts its failure and says why (without the client properties' secrets); the
health is not ready until a success and unhealthy after 3 failures in a row."""

from kcli.admin.settings import ClientSettings
from kcli.ops.lag_service import UNHEALTHY_AFTER, Collector, selection


def refusing(settings):
    raise ConnectionError("SASL handshake failed for user alice with password hunter2")


def test_failures_leave_no_snapshot_and_never_show_a_secret():
    lines = []
    c = Collector(ClientSettings("127.0.0.1:1"), selection([], [], []), 1.0, on_error=lines.append,
                  connect=refusing, secrets=["hunter2"])
    for n in range(1, UNHEALTHY_AFTER + 1):
        c.collect_once()
        snap, health = c.last
        assert snap is None and (health.collections, health.failures, health.failures_in_row) == (n, n, n)
        assert not health.ready and not health.healthy
    assert health.reason() == ("unhealthy: 3 collections failed in a row; the last: SASL handshake failed for user "
                               "alice with password [redacted]")
    assert lines == ["Warn: collection failed: SASL handshake failed for user alice with password [redacted]"] * 3
