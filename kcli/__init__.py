"""kcli: an operator toolkit for Apache Kafka with the time-aware KIPs."""

__version__ = "0.1.0"
