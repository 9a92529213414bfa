"""``python -m tests.parity.update_docs``: rewrites the parity tables of docs/dropins.md (the native
commands' and the drop-ins') from the corpora's declared differences
(``tests/parity/test_parity.py`` checks that they are exactly what the
harness sees on Apache Kafka)."""

from __future__ import annotations

from tests.parity.acls_corpus import ACL_CASES
from tests.parity.corpus import CASES
from tests.parity.share_corpus import SHARE_CASES
from tests.parity.streams_corpus import STREAMS_CASES
from tests.parity.reassign_corpus import REASSIGN_CASES
from tests.parity.transactions_corpus import TXN_CASES
from tests.parity.harness import BEGIN, DROPIN_BEGIN, DROPIN_END, END, DOCS, dropin_table, table


def _replace(text: str, begin: str, end: str, body: str) -> str:
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return head + begin + body + end + tail


def main() -> None:
    text = DOCS.read_text(encoding="utf-8")
    text = _replace(text, BEGIN, END, table(CASES))
    dropins = dropin_table(CASES + STREAMS_CASES + SHARE_CASES + ACL_CASES + TXN_CASES + REASSIGN_CASES)
    DOCS.write_text(_replace(text, DROPIN_BEGIN, DROPIN_END, dropins), encoding="utf-8")


if __name__ == "__main__":
    main()
