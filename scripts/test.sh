#!/usr/bin/env bash
# Installs everything the tests need on a fresh Debian machine (kcat; a JDK for Spark, Apache
# Kafka and the Java client tests; Maven to fetch Apache Kafka's jars into ~/.cache/kcli: 4.4.0, the
# reference, and 4.3.1, 3.9.1 and 3.7.2 for the compatibility subset (tests/apache/test_compat.py);
# Spark's Kafka connector (scripts/provision-spark-kafka.sh) for the audit's JVM source; openssl
# for the TLS tests' certificates; tmux, zsh and fish for the completion tests; a venv
# with kcli and its [spark,dev] extras; kcli's dependencies as wheels in ~/.cache/kcli/wheels, so
# the `uv tool install` test and the README's set-up test install offline), lints and type-checks
# (ruff, mypy) and runs the test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v kcat >/dev/null 2>&1 || need+=(kcat)
command -v javac >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || need+=(maven)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v man >/dev/null 2>&1 || need+=(man-db)    # the set-up test reads `man kcli`
# a real Prometheus scrapes `kcli lag serve`; promtool checks the shipped rules (no service is
# started where there is no init system: the tests run the binary)
command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1 || need+=(prometheus)
for shell in tmux zsh fish; do      # the completion tests type Tab in real shells (tmux: a terminal)
  command -v $shell >/dev/null 2>&1 || need+=($shell)
done
if [ ${#need[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

# The real-Kafka tests need the jars: no download, no run (one line says why). Each version is
# downloaded once (a second run finds it in the cache).
for version in 4.4.0 4.3.1 3.9.1 3.7.2; do
  KCLI_KAFKA_VERSION=$version bash scripts/provision-kafka.sh >/dev/null
done

[ -x .venv/bin/python ] || python3 -m venv .venv
# editable_mode=compat: a path entry for the clone, as a regular install has no import hook;
# setuptools' default editable finder costs every kcli process ~15 ms at start (pathlib,
# urllib.parse), which the start-up benches (bench/java_tools.py, groups_scale.py) would count
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[spark,dev]' \
  --config-settings editable_mode=compat
# Spark's own Kafka connector for pyspark's version, for the audit's JVM source and its tests
PYTHON=.venv/bin/python bash scripts/provision-spark-kafka.sh >/dev/null
.venv/bin/python -m pip download -q --disable-pip-version-check -d ~/.cache/kcli/wheels . 'setuptools>=68'
# the linter and the type checker first (pyproject.toml's settings): either failing fails the command
.venv/bin/ruff check kcli tests scripts bench
.venv/bin/mypy
exec .venv/bin/python -m pytest -q "$@"
