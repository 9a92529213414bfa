"""kafka-python is pinned exactly in pyproject.toml, and the installed release is the pinned one:
kcli's message classes and the costs in docs/upstream/README.md were measured on that release."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def pinned(distribution: str) -> str:
    """The exact version pyproject.toml pins ``distribution`` to (``name[extras]==X.Y.Z``)."""
    dependencies = tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
    for spec in dependencies:
        m = re.fullmatch(rf"{re.escape(distribution)}(\[[^\]]*\])?==([0-9][0-9A-Za-z.]*)", spec.strip())
        if m:
            return m.group(2)
    raise AssertionError(f"pyproject.toml pins no exact version of {distribution}")


def pin_mismatch(distribution: str, pin: str, installed: str) -> str | None:
    """One line saying the installed release is not the pinned one, or None when it is."""
    if installed == pin:
        return None
    return (f"{distribution} {installed} is installed but pyproject.toml pins {pin}: reinstall "
            f"(pip install -e .) or re-measure docs/upstream/README.md before moving the pin")


def test_the_installed_kafka_python_is_the_pinned_one():
    mismatch = pin_mismatch("kafka-python", pinned("kafka-python"), version("kafka-python"))
    assert mismatch is None, mismatch


@pytest.mark.parametrize("installed", ["3.0.13", "3.1.0", "3.0.1", "3.0.12.post1"])
def test_another_release_is_named_in_one_line(installed):
    line = pin_mismatch("kafka-python", pinned("kafka-python"), installed)
    assert line == (f"kafka-python {installed} is installed but pyproject.toml pins 3.0.12: reinstall "
                    "(pip install -e .) or re-measure docs/upstream/README.md before moving the pin")
    assert "\n" not in line


def test_the_pin_is_exact():
    assert re.fullmatch(r"\d+\.\d+\.\d+", pinned("kafka-python"))
