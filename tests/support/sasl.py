"""What the SASL and TLS broker tests share: the users, the broker's refusal text, waiting for
a client's error, and kcat."""

from __future__ import annotations

import shutil
import subprocess
import time

USERS = {"alice": "alice-secret", "bob": "bob-secret"}
# the users of the authorizer clusters (real, tests/conftest.py apache_kafka_acl, and embedded):
# admin is a super user on both
ACL_USERS = {**USERS, "admin": "admin-secret", "carol": "carol-secret"}
AUTH_FAILED = "Authentication failed: Invalid username or password"


def wait_for_error(client, errors: list, code: int, timeout_s: float = 10.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        client.poll(0.1)
        for e in errors:
            if e.code() == code:
                return e
    raise AssertionError(f"no error {code} within {timeout_s}s; got {errors[:3]}")


KCAT = shutil.which("kcat")


def kcat(ec, *args: str, wait_s: int = 2) -> subprocess.CompletedProcess:
    """``kcat -L`` waits ``wait_s`` for metadata."""
    return subprocess.run([KCAT, "-b", ec.bootstrap_servers, *args, "-m", str(wait_s)],
                          capture_output=True, text=True, timeout=30)


PASSWORD = "alice-secret"      # alice's, on the CLI tests' SASL cluster (the ``sasl_cluster`` fixture)
BASE_TS = 1_700_000_000_000   # the first record time on that cluster


def properties(form: str, password: str) -> str:
    if form == "jaas":
        return ("security.protocol=SASL_PLAINTEXT\n"
                "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule "
                f'required username="alice" password="{password}";\n')
    return ("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
            f"sasl.username=alice\nsasl.password={password}\n")
