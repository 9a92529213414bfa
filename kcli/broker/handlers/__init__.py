"""Every handler module, imported for its ``@handles`` registrations (``kcli.broker.dispatch``)."""

from kcli.broker.handlers import (config, data, groups, meta, quotas, replicas, sasl,  # noqa: F401
                                  streams, topics)
