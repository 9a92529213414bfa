"""Parameter types of kcli's own. ``Bounded``: an integer option within [min, max] whose bounds
are checked as click's IntRange checks them but are not printed in ``--help`` (an int64 range
there is noise: ``[-9223372036854775808<=x<=9223372036854775807]``), and whose digits are ASCII
(kcli.inputs: click's int() took ``٢`` as 2)."""

from __future__ import annotations

from typer._click import types  # typer vendors click; pinned in pyproject

from kcli.inputs import ASCII_INTEGER, shown


class Bounded(types.IntParamType):
    def __init__(self, low: int, high: int):
        self.low, self.high = low, high

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not ASCII_INTEGER.fullmatch(value.strip()):
            self.fail(f"{shown(value)!r} is not a valid integer: ASCII digits (0-9) only, a sign before them",
                      param, ctx)
        number = super().convert(value, param, ctx)
        if not self.low <= number <= self.high:
            self.fail(f"{number} is out of range: from {self.low} to {self.high}", param, ctx)
        return number
