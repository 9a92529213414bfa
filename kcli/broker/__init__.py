"""The embedded Kafka-protocol broker (development and test broker implementing the KIPs'
broker side). Public API, loaded lazily so that importing this package stays cheap:

- ``EmbeddedCluster(nodes=1, data_dir=None, clock=None, configs=None, pose_as=None,
  host="127.0.0.1", port=0, record_creation_times=True, sasl_users=None, tls=None,
  authorize=False, super_users=None)``: a context manager (or ``start()``/``stop()``) running the
  broker on a background thread; ``sasl_users={user: password}`` makes its listeners
  SASL_PLAINTEXT (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512), ``tls=(certfile, keyfile)`` (or an
  ``ssl.SSLContext``) SSL, both together SASL_SSL; ``authorize=True`` turns on the ACL authorizer
  (kcli.broker.acl), ``super_users`` pass every check.
- ``run_forever(listen, nodes, data_dir, configs, pose_as, ready_callback, sasl_users,
  super_users, tls)``: the foreground server behind ``kcli broker start`` (users turn on the
  authorizer).
"""

__all__ = ["EmbeddedCluster", "run_forever"]


def __getattr__(name):
    if name in __all__:
        from kcli.broker import embedded
        return getattr(embedded, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
