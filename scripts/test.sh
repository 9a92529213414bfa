#!/usr/bin/env bash
# Installs everything the tests need on a fresh Debian machine (kcat, Java for Spark, openssl for
# the TLS tests' certificates, a venv with kcli and its [spark,dev] extras) and runs the test
# suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v kcat >/dev/null 2>&1 || need+=(kcat)
command -v java >/dev/null 2>&1 || need+=(openjdk-17-jre-headless)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[spark,dev]'
exec .venv/bin/python -m pytest -q "$@"
