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


# -- authorization ---------------------------------------------------------------------------------

# Kafka's authorization errors, by the resource type they refuse
AUTHORIZATION_FAILED = {29: "topic", 30: "group", 31: "cluster", 53: "transactional-id", 58: "delegation-token"}
# The operation each request needs on each resource type (Kafka's "Operations and Resources on
# Protocols", docs/security): what a refusal names
NEEDED = {
    ("Metadata", "topic"): "DESCRIBE", ("DescribeTopicPartitions", "topic"): "DESCRIBE",
    ("ListOffsets", "topic"): "DESCRIBE", ("Fetch", "topic"): "READ", ("Produce", "topic"): "WRITE",
    ("CreateTopics", "topic"): "CREATE", ("DeleteTopics", "topic"): "DELETE", ("CreatePartitions", "topic"): "ALTER",
    ("DescribeConfigs", "topic"): "DESCRIBE_CONFIGS", ("DescribeConfigs", "cluster"): "DESCRIBE_CONFIGS",
    ("IncrementalAlterConfigs", "topic"): "ALTER_CONFIGS", ("IncrementalAlterConfigs", "cluster"): "ALTER_CONFIGS",
    ("FindCoordinator", "group"): "DESCRIBE", ("DescribeGroups", "group"): "DESCRIBE",
    ("ConsumerGroupDescribe", "group"): "DESCRIBE", ("StreamsGroupDescribe", "group"): "DESCRIBE",
    ("OffsetFetch", "group"): "DESCRIBE", ("OffsetFetch", "topic"): "DESCRIBE",
    ("OffsetCommit", "group"): "READ", ("OffsetCommit", "topic"): "READ",
    ("OffsetDelete", "group"): "DELETE", ("OffsetDelete", "topic"): "READ", ("DeleteGroups", "group"): "DELETE",
    ("ListGroups", "cluster"): "DESCRIBE", ("DescribeAcls", "cluster"): "DESCRIBE",
    ("CreateAcls", "cluster"): "ALTER", ("DeleteAcls", "cluster"): "ALTER",
}


class NotAuthorized(BrokerRejected):
    """The broker refused a request for want of an ACL: one line saying which operation on which
    resource was refused to whom (``not authorized to DESCRIBE group 'billing' (User:alice)``),
    exit 1. ``error`` is Kafka's (TOPIC_AUTHORIZATION_FAILED ...)."""

    def __init__(self, error, operation: str, resource: str, name: str | None, principal: str | None):
        what = "the cluster" if resource == "cluster" or name is None else f"{resource} '{_quoted(name)}'"
        super().__init__(error, f"not authorized to {operation} {what}" + (f" ({principal})" if principal else ""))
        self.operation, self.resource, self.name, self.principal = operation, resource, name, principal


def _quoted(name: str) -> str:
    return name if name.isprintable() else name.encode("unicode_escape").decode("ascii")


def not_authorized(error, request: str, name: str | None, principal: str | None) -> NotAuthorized | None:
    """``error`` (a kcli.model.BrokerError, or None) as a NotAuthorized for ``request`` (Kafka's
    API name) on the resource ``name``, when it is an authorization error; else None."""
    if error is None or error.code not in AUTHORIZATION_FAILED:
        return None
    resource = AUTHORIZATION_FAILED[error.code]
    return NotAuthorized(error, NEEDED.get((request, resource), "DESCRIBE" if request.startswith(("Describe", "List"))
                                           else "ALTER"), resource, None if resource == "cluster" else name, principal)
