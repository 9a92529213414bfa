"""Rendering: tables (rich), the Kafka tools' plain layouts, JSON and CSV. Never talks to Kafka."""
