"""KafkaAdmin implements the Admin interface the operations are written against: every method,
with the same parameters."""

import inspect

from kcli.admin import Admin
from kcli.admin.client import KafkaAdmin


def test_kafka_admin_has_every_admin_method():
    for name, member in vars(Admin).items():
        if name.startswith("_") or not callable(member):
            continue
        assert hasattr(KafkaAdmin, name), name
        want = list(inspect.signature(member).parameters)
        got = list(inspect.signature(getattr(KafkaAdmin, name)).parameters)
        assert got[:len(want)] == want, (name, got, want)
