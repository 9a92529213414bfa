"""The requests a command sends to the embedded broker, told apart by connection.

kcli's own connection (kafka-python's codec, kcli/admin/wire/, client id ``kcli``)
sends exactly what kcli decides: assert those counts exactly. librdkafka (client id ``rdkafka``)
opens connections, refreshes metadata and looks coordinators up on its own timing, one more or
fewer from run to run (seen: ApiVersions 5 vs 6, Metadata 4 vs 5, FindCoordinator 2 vs 3): bound
those (OWN_TIMING); its other requests are the admin calls kcli makes, held exactly.

    before = snapshot(ec)
    run_kcli(...)
    s = sent(ec, before)        # s["Fetch"]: every client's; s.kcli, s.librdkafka: apart
"""

from __future__ import annotations

from collections import Counter

KCLI, LIBRDKAFKA = "kcli", "rdkafka"
OWN_TIMING = ("ApiVersions", "Metadata", "FindCoordinator")    # librdkafka's, on its own timing
BOUND = 8                                                       # at most this many of each


class Sent(Counter):
    """Requests sent, all clients together (a Counter by API name), with ``kcli`` and
    ``librdkafka``: the same, per connection kind."""
    kcli: Counter
    librdkafka: Counter

    def exact(self) -> Counter:
        """What may be compared exactly: all of kcli's, and librdkafka's but OWN_TIMING."""
        return +Counter({**{f"kcli {k}": v for k, v in self.kcli.items()},
                         **{f"rdkafka {k}": v for k, v in self.librdkafka.items() if k not in OWN_TIMING}})

    def bounded(self) -> None:
        """librdkafka's OWN_TIMING requests, each at most BOUND."""
        assert all(self.librdkafka[k] <= BOUND for k in OWN_TIMING), self.librdkafka


def snapshot(ec) -> dict:
    return {c: ec.request_counts(c) for c in (None, KCLI, LIBRDKAFKA)}


def _diff(now: dict, before: dict) -> Counter:
    total = Counter()
    for node, counts in now.items():
        total.update({api: n - before.get(node, {}).get(api, 0) for api, n in counts.items()})
    return +total


def sent(ec, before: dict) -> Sent:
    """Requests served since ``before`` (a ``snapshot``), summed over the nodes."""
    s = Sent(_diff(ec.request_counts(), before[None]))
    s.kcli = _diff(ec.request_counts(KCLI), before[KCLI])
    s.librdkafka = _diff(ec.request_counts(LIBRDKAFKA), before[LIBRDKAFKA])
    return s


def same_requests(a: Sent, b: Sent) -> None:
    """The same requests, but librdkafka's OWN_TIMING, which are bounded."""
    assert a.exact() == b.exact(), (a.exact(), b.exact())
    a.bounded()
    b.bounded()
