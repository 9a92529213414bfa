"""The connection and negotiation every family of kcli's own requests shares: ``WireBase`` opens
``kcli.admin.wire.connection.Wire`` (ApiVersions, SASL), picks the highest version both sides speak
and sends one request by a deadline, turning the connection's failures into kcli's errors.

kafka-python is imported only in this package on the client side (lazily: a command that sends
nothing over it never loads it): its response registry is process-global and ``kcli.protocol``
declares the KIP classes once.
"""

from __future__ import annotations

import logging

from kcli.admin.settings import ClientSettings
from kcli.errors import BrokerRejected, OperationError, UnreadableAnswer, UnsupportedByBroker, UsageError
from kcli.model import BrokerError

logging.getLogger("kafka").addHandler(logging.NullHandler())
logging.getLogger("kafka").propagate = False

# librdkafka's codes for a request sent and not answered (RD_KAFKA_RESP_ERR__TIMED_OUT, __TRANSPORT)
UNANSWERED_CODES = {"_TIMED_OUT": -185, "_TRANSPORT": -195}


class DeadlineNotSent(OperationError):
    """A request the command's deadline left no time to send: its message says "not sent"."""


class WireBase:
    """One client's connections (``Wire``), and what every request family keeps on them for the
    client's life (one command's: KafkaAdmin.wire): the leaders by topic (``metadata``), the
    coordinators by group (``coordinators``) and the brokers and cluster id of the last Metadata
    answer (``Wire.cluster``)."""

    def __init__(self, settings: ClientSettings):
        import kcli.protocol as proto             # first: it lets kafka-python's modules load alone
        from kcli.admin.wire.connection import Wire, WireConfigError, WireTimeout, WireUnreadable

        self.proto = proto
        self.settings = settings
        self._leaders: dict[str, dict[int, int | None]] = {}    # by topic, for this client's life
        self._coordinators: dict[str, int] = {}                  # by group
        self._listed_types: dict[str, str] = {}                  # by group: list_groups' (v5+)
        settings.validate()                       # librdkafka's checks, before connecting
        config = settings.kafka_python_config()
        try:
            self._wire = Wire(config, settings.until)
        except WireConfigError as exc:
            raise UsageError(f"Invalid client configuration: {exc}") from None
        except WireUnreadable as exc:
            raise UnreadableAnswer(exc.answer, str(exc)) from None
        except WireTimeout as exc:
            raise OperationError(f"Cannot reach the cluster at {settings.bootstrap_servers} "
                                 f"within {settings.timeout_ms} ms: {exc}") from None
        except Exception as exc:  # noqa: BLE001 - any failure to connect is one clear line
            raise OperationError(f"Cannot connect to the cluster at {settings.bootstrap_servers}: "
                                 f"{exc}") from None

    def close(self) -> None:
        self._wire.close()

    def max_version(self, request_class) -> int | None:
        """The highest version both sides speak, or None when the broker lacks the API."""
        broker = self._wire.api_versions.get(request_class.API_KEY)
        if broker is None:
            return None
        top = min(broker[1], request_class.max_version)
        return top if top >= broker[0] else None

    def _version(self, request_class, what: str) -> int:
        version = self.max_version(request_class)
        if version is None:
            raise UnsupportedByBroker(f"The broker does not support {what}")
        return version

    def send(self, request, node_id=None, until: float | None = None):
        """The response, by the command's deadline or ``until`` when sooner. A request that went
        out and got no answer (none in time, or the connection dropped) raises BrokerRejected
        with ``_TIMED_OUT`` or ``_TRANSPORT``: its outcome is unknown. One that was not sent (no
        connection, no time left) raises OperationError: nothing was asked of the broker."""
        return self._answered(type(request).__name__, lambda: self._wire.send(request, node_id, until))

    def send_raw(self, request, node_id=None) -> bytes:
        """The answer's bytes after its response header, not decoded (Connection.request_raw), for
        a reader with schemas of its own. Errors as ``send``'s."""
        return self._answered(type(request).__name__, lambda: self._wire.send(request, node_id, raw=True))

    def send_each(self, requests: list[tuple[int, object]]) -> list:
        """The responses to ``requests`` ((node id, request), one per node), all sent before any
        answer is read (Wire.send_each): the brokers answer at once. Errors as ``send``'s."""
        if not requests:
            return []
        return self._answered(type(requests[0][1]).__name__, lambda: self._wire.send_each(requests))

    @staticmethod
    def _answered(name: str, call):
        """``call()``'s response, its wire errors as ``send`` words them for request ``name``."""
        from kcli.admin.wire.connection import WireError, WireNotSent, WireTimeout, WireUnreadable

        try:
            return call()
        except WireUnreadable as exc:
            raise UnreadableAnswer(exc.answer, str(exc), name) from None
        except WireError as exc:
            message = f"{name} failed: {exc}"
            if not exc.sent:
                raise (DeadlineNotSent if isinstance(exc, WireNotSent) else OperationError)(message) from None
            name = "_TIMED_OUT" if isinstance(exc, WireTimeout) else "_TRANSPORT"
            raise BrokerRejected(BrokerError(UNANSWERED_CODES[name], name, message)) from None
        except Exception as exc:  # noqa: BLE001
            raise OperationError(f"{name} failed: {exc}") from None

    def refused(self, code: int, request: str, name: str | None):
        """The NotAuthorized (kcli.errors) for an authorization error ``code`` the broker answered
        ``request`` (Kafka's API name) with about ``name``, naming this client's principal; None
        for any other code."""
        from kcli.errors import not_authorized
        from kcli.model import BrokerError

        return not_authorized(BrokerError(code, error_name(code), error_name(code)), request, name,
                              self.settings.principal())

    def said(self, code: int, request: str, group_id: str, topic: str):
        """One partition's answer to a group request (a BrokerError, None without error), an
        authorization error worded as NotAuthorized words it (the group's or the topic's)."""
        from kafka.errors import for_code

        from kcli.errors import AUTHORIZATION_FAILED
        from kcli.model import BrokerError

        if not code:
            return None
        refusal = self.refused(code, request, topic if AUTHORIZATION_FAILED.get(code) == "topic" else group_id)
        return BrokerError(code, error_name(code), for_code(code).description if refusal is None else refusal.message)

    def advertised_version(self, api_key: int) -> int | None:
        """The highest version of ``api_key`` the broker advertises (ApiVersions), None without it."""
        broker = self._wire.api_versions.get(api_key)
        return None if broker is None else broker[1]

    def broker_api_versions(self, node_ids: list[int]) -> dict[int, dict[int, tuple[int, int]]]:
        """Each broker's ApiVersions ranges, by API key: one connection to each."""
        return {n: self._answered("ApiVersionsRequest", lambda n=n: self._wire.node_api_versions(n))
                for n in node_ids}

    def advertised_range(self, api_key: int) -> tuple[int, int] | None:
        """The (lowest, highest) versions of ``api_key`` the broker advertises, None without it."""
        return self._wire.api_versions.get(api_key)


def error_name(code: int) -> str:
    from kafka.errors import for_code

    return for_code(code).message
