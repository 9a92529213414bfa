"""The embedded Kafka-protocol broker (development and test broker implementing the KIPs'
broker side). Public API, loaded lazily so that importing this package stays cheap:

- ``EmbeddedCluster(nodes=1, data_dir=None, clock=None, configs=None, pose_as=None,
  host="127.0.0.1", port=0, record_creation_times=True, sasl_users=None, tls=None)``: a context
  manager (or ``start()``/``stop()``) running the broker on a background thread; ``sasl_users={user:
  password}`` makes its listeners SASL_PLAINTEXT (PLAIN), ``tls=(certfile, keyfile)`` (or an
  ``ssl.SSLContext``) SSL, both together SASL_SSL.
- ``run_forever(listen, nodes, data_dir, configs, pose_as, ready_callback)``: the foreground
  server behind ``kcli broker start``.
"""

__all__ = ["EmbeddedCluster", "run_forever"]


def __getattr__(name):
    if name in __all__:
        from kcli.broker import embedded
        return getattr(embedded, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
