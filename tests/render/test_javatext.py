"""kcli.render.javatext against Apache's client in the jars: every error kcli names as the Java
tools do has Apache's name, exception class and message."""

from __future__ import annotations

from pathlib import Path

import pytest

from kcli.render.javatext import ERRORS, exception_text
from tests.support.apache_kafka import java


@pytest.mark.apache
def test_every_row_is_apaches():
    got = java(Path(__file__).parent / "java" / "KafkaErrors.java")
    assert got.code == 0, got.err
    apache = {int(code): (name, cls, message) for code, name, cls, message in
              (line.split("\t") for line in got.out.splitlines())}
    for code, (name, cls, message) in ERRORS.items():
        assert (name, "org.apache.kafka.common." + cls, message) == apache[code], code
    assert exception_text(69, "?") == ("org.apache.kafka.common.errors.GroupIdNotFoundException: "
                                       "The group id does not exist.")
    assert exception_text(9999, "as the client said") == "as the client said"
