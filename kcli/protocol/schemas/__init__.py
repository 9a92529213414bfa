"""The JSON schemas of the KIP messages kcli declares beyond kafka-python's own (see kcli.protocol)."""
