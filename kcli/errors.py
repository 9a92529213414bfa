"""kcli's errors and the exit codes they map to (documented in README and the man page).

0 success; 1 the operation failed (nothing or, where stated, part applied); 2 bad usage or input
(nothing sent to the cluster); 3 partly applied (the output says exactly which partitions); 4 a
check found a problem (``kcli check ...``: its output says what).
"""

from __future__ import annotations

from kcli.datatypes import datatype

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_PARTIAL = 3
EXIT_FOUND = 4
EXIT_INTERRUPTED = 130         # Ctrl-C (SIGINT), as a shell reports a process it ended: 128 + 2
INTERRUPTED = "interrupted (Ctrl-C)"    # the one line every command prints then, after Error:


class KcliError(Exception):
    exit_code = EXIT_FAILED

    def __init__(self, message: str, exit_code: int | None = None):
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code

    @property
    def message(self) -> str:
        return str(self)


class UsageError(KcliError):
    """Bad usage or input: nothing was sent to the cluster."""
    exit_code = EXIT_USAGE


class OperationError(KcliError):
    """The operation failed on the cluster or could not reach it."""
    exit_code = EXIT_FAILED


class UnsupportedByBroker(OperationError):
    """The broker's API versions are too old for what was asked."""


class PartialFailure(KcliError):
    exit_code = EXIT_PARTIAL


class CheckFound(KcliError):
    """A check ran and found a problem (its output names it), so that runbooks can alert."""
    exit_code = EXIT_FOUND


class BrokerRejected(OperationError):
    """The cluster answered a request with an error: ``error`` is its kcli.model.BrokerError
    (Kafka's code and name, the client's text). Operations decide by ``error.name``, never by
    the text."""

    def __init__(self, error, message: str | None = None):
        super().__init__(message or error.message)
        self.error = error


@datatype(frozen=True)
class Answer:
    """A broker's answer by its API and version; printed as Kafka names it (``MetadataResponse v12``)."""
    api: str                         # Kafka's name of the API: ``Metadata``, ``ConsumerGroupDescribe``
    version: int

    def __str__(self) -> str:
        return f"{self.api}Response v{self.version}"


class UnreadableAnswer(OperationError):
    """kcli's own client (kafka-python's codec, kcli.admin.wire) could not read a broker's answer,
    or could not negotiate with the broker: ``answer`` names it (an Answer: its ``api`` and
    version), ``detail`` says why. librdkafka may read it: kcli.admin.fallback decides (by
    ``answer.api``)."""

    def __init__(self, answer: Answer, detail: str, request: str | None = None):
        super().__init__(f"{request + ' failed: ' if request else ''}the broker's {answer} could not be "
                         f"read by kcli's own client ({detail})")
        self.answer, self.detail = answer, detail
