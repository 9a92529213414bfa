"""Every handler module, imported for its ``@handles`` registrations (``kcli.broker.dispatch``)."""

from kcli.broker.handlers import (acls, config, data, groups, meta, sasl, share, streams, topics,  # noqa: F401
                                 txns, users)
