"""One rule for where kcli keeps its files: every command that writes state asks ``kcli.xdg``."""

from __future__ import annotations

import os

from kcli.xdg import cache_dir, config_dir, state_dir


def test_state_and_config_follow_the_xdg_variables_and_fall_back_to_home():
    home = os.path.expanduser("~")
    assert state_dir("rollback", environ={"XDG_STATE_HOME": "/s"}) == "/s/kcli/rollback"
    assert state_dir("rollback", environ={}) == os.path.join(home, ".local", "state", "kcli", "rollback")
    assert state_dir(environ={"XDG_STATE_HOME": ""}) == os.path.join(home, ".local", "state", "kcli")
    assert config_dir("config.toml", environ={"XDG_CONFIG_HOME": "/c"}) == "/c/kcli/config.toml"
    assert config_dir(environ={}) == os.path.join(home, ".config", "kcli")


def test_every_state_file_of_kcli_is_under_the_one_state_directory(monkeypatch, tmp_path):
    from kcli.admin.sightings import path_for
    from kcli.ops.expansions import memory_path
    from kcli.ops.resets.rollback import rollback_dir
    from kcli.pipeline.spark import log_path
    from kcli.profiles import config_path

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    state = str(tmp_path / "state" / "kcli")
    assert rollback_dir() == os.path.join(state, "rollback")
    assert memory_path("a/b") == os.path.join(state, "expansions", "a-b.json")
    assert path_for("a/b") == os.path.join(state, "partitions", "a-b.json")
    assert os.path.dirname(log_path(0)) == os.path.join(state, "spark")
    assert config_path() == tmp_path / "config" / "kcli" / "config.toml"


def test_the_cache_is_kclis_own_setting_first_then_xdg():
    assert cache_dir("kafka-4.4.0", environ={"KCLI_CACHE_DIR": "/c", "XDG_CACHE_HOME": "/x"}) == "/c/kafka-4.4.0"
    assert cache_dir("kafka-4.4.0", environ={"XDG_CACHE_HOME": "/x"}) == "/x/kcli/kafka-4.4.0"
    assert cache_dir(environ={}).endswith("/.cache/kcli")
