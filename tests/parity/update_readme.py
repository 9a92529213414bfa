"""``python -m tests.parity.update_readme``: rewrites the README's parity table from the corpus's
declared differences (``tests/parity/test_parity.py`` checks that they are exactly what the
harness sees on Apache Kafka)."""

from __future__ import annotations

from tests.parity.corpus import CASES
from tests.parity.harness import BEGIN, END, README, table


def main() -> None:
    text = README.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    README.write_text(head + BEGIN + table(CASES) + END + tail, encoding="utf-8")


if __name__ == "__main__":
    main()
