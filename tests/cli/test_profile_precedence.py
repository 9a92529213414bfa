"""Which cluster a native command talks to when a profile, KCLI_BOOTSTRAP_SERVER and -b disagree:
what is typed on the line wins over the environment (README, Profiles). Two embedded clusters,
each with a topic of its own, so that the listing names the cluster that answered."""

from __future__ import annotations

import pytest

from kcli.broker import EmbeddedCluster
from tests.support.run import run_kcli


@pytest.fixture
def clusters(tmp_path, monkeypatch):
    with EmbeddedCluster() as up, EmbeddedCluster() as down:
        up.create_topic("on-up", 1)
        down.create_topic("on-down", 1)
        (tmp_path / "kcli").mkdir()
        (tmp_path / "kcli" / "config.toml").write_text(
            f'default_profile = "up"\n[profiles.up]\nbootstrap_servers = "{up.bootstrap_servers}"\n'
            f'[profiles.down]\nbootstrap_servers = "{down.bootstrap_servers}"\n')
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
        monkeypatch.delenv("KCLI_PROFILE", raising=False)
        yield up, down


def topics(*args: str) -> str:
    r = run_kcli(None, *args, "list", "topics", "-o", "plain")
    assert r.code == 0, r
    return r.out.strip()


def test_an_exported_bootstrap_server_does_not_beat_a_typed_profile(clusters, monkeypatch):
    up, down = clusters
    monkeypatch.setenv("KCLI_BOOTSTRAP_SERVER", up.bootstrap_servers)
    assert topics("--profile", "down") == "on-down"           # it listed on-up
    assert topics("--profile", "down", "-b", up.bootstrap_servers) == "on-up"    # -b typed wins
    monkeypatch.setenv("KCLI_BOOTSTRAP_SERVER", down.bootstrap_servers)
    assert topics() == "on-down"                   # over the profile default_profile chose
    monkeypatch.setenv("KCLI_PROFILE", "up")
    assert topics() == "on-down"                   # and over the one KCLI_PROFILE chose
