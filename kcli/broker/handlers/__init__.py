"""Every handler module, imported for its ``@handles`` registrations (``kcli.broker.dispatch``)."""

from kcli.broker.handlers import (acls, config, controller, data, groups, meta, quotas,  # noqa: F401
                                  replicas, sasl, share, streams, topics, txns, users)
