"""Rendering: tables (rich), the Kafka tools' plain layouts (their orders from kcli.javaorder, their
exception texts from javatext), JSON and CSV. Never talks to Kafka."""
