"""Every handler module, imported for its ``@handles`` registrations (``kcli.broker.dispatch``)."""

from kcli.broker.handlers import (acls, config, data, groups, meta, quotas, replicas, sasl, share,  # noqa: F401
                                  streams, topics, txns, users)
