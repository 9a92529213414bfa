"""Reset planning, pure (no Kafka, no clock): a scenario plus what the cluster said about each
partition gives a plan per partition (plan), and kafka-consumer-groups' reset CSV (csvfile)."""
