"""Every handler module, imported for its ``@handles`` registrations (``kcli.broker.dispatch``)."""

from kcli.broker.handlers import config, data, groups, meta, sasl, streams, topics, txns  # noqa: F401
