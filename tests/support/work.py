"""Counting the work a call does, deterministically: the Python lines it executes and the C
functions it calls (a regex match, ``int()``, a slice method...), whatever else loads the machine.

A test proves a parser linear by this count, never by a clock: the same input gives the same count
on any machine, and a quadratic path shows as a count that grows with the square of the input."""

from __future__ import annotations

import sys


def work(call) -> tuple[int, object]:
    """``call()``'s count of executed lines plus C calls, and its value (or the exception it
    raised)."""
    count = 0

    def line(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return line

    def profile(frame, event, arg):
        nonlocal count
        if event == "c_call":
            count += 1

    old_trace, old_profile = sys.gettrace(), sys.getprofile()
    sys.settrace(line)
    sys.setprofile(profile)
    try:
        value = call()
    except Exception as exc:  # noqa: BLE001 - a refusal of any kind is work too
        value = exc
    finally:
        sys.settrace(old_trace)
        sys.setprofile(old_profile)
    return count, value
