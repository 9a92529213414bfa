"""Every handler module, imported for its ``@handles`` registrations.

The group coordinators' module (``groups``) is imported when it exists, so the broker core runs
before and without it.
"""

import importlib
import importlib.util

from kcli.broker.handlers import config, data, meta, sasl, topics  # noqa: F401

if importlib.util.find_spec("kcli.broker.handlers.groups") is not None:
    importlib.import_module("kcli.broker.handlers.groups")
