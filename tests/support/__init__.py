"""Helpers shared by the tests and the benches: real Apache Kafka (``apache_kafka``) and the
clients that make cluster state with it (``clients``)."""
