"""kafka-transactions' grammar (kcli/cli/dropin/argparse4j.py, transactions.py), pure: what
argparse4j 0.7 accepts and the messages it gives, each expectation the Java tool's (Kafka 4.4's
TransactionsCommand, run by hand against these lines; the help screens themselves are compared
byte for byte on real Kafka by the parity corpus, tests/parity/transactions_corpus.py)."""

from __future__ import annotations

import pytest

from kcli.cli.dropin import argparse4j as ap
from kcli.cli.dropin.common import HelpScreen, Usage
from kcli.cli.dropin.transactions import read

B = ["--bootstrap-server", "h:1"]


@pytest.mark.parametrize("args, message", [
    ([*B, "abort", "--topic", "t", "--partition", "0", "--producer-epoch", "40000"],
     "argument --producer-epoch: could not convert '40000' to Short (Value out of range. Value:\"40000\" Radix:10)"),
    ([*B, "abort", "--topic", "t", "--partition", "0", "--start-offset", "99999999999999999999"],
     "argument --start-offset: could not convert '99999999999999999999' to Long (For input string: "
     "\"99999999999999999999\")"),
    ([*B, "abort", "--top", "t", "--partition", "0", "--p", "1"],
     "ambiguous option: --p could match --partition, --producer-epoch, --producer-id"),
    ([*B, "desc"], "ambiguous command: desc could match describe, describe-producers"),
    ([*B], "too few arguments"),
    (["list"], "argument --bootstrap-server is required"),
    ([*B, "abort"], "argument --partition is required"),          # the parser's last missing one
    ([*B, "list", "extra"], "unrecognized arguments: 'extra'"),
    ([*B, "list", "--broker-id=\n"], "unrecognized arguments: '--broker-id=\\n'"),   # one line: escaped
    ([*B, "describe-producers", "--topic", "t", "--partition", "1\n"],
     "argument --partition: could not convert '1\\n' to Integer (For input string: \"1\\n\")"),
])
def test_refusals_are_argparse4js_messages_on_one_line(args, message):
    with pytest.raises(Usage) as exc:
        read(args)
    assert exc.value.message == f"kafka-transactions.sh: error: {message}"


def test_prefixes_equals_and_defaults():
    req = read([*B, "find", "--top=t", "--max-transaction-timeout", "0"])
    assert (req.command, req.get("topic"), req.get("max_transaction_timeout")) == ("find-hanging", "t", 0)
    assert read([*B, "find-hanging", "--broker-id", "1"]).get("max_transaction_timeout") == 15


def test_an_option_value_that_looks_like_an_option_is_missing():
    with pytest.raises(Usage) as exc:
        read([*B, "describe", "--transactional-id", "--x"])
    assert exc.value.message.endswith("argument --transactional-id: expected one argument")


def test_help_of_a_command_is_its_screen():
    with pytest.raises(HelpScreen) as exc:
        read([*B, "describe", "-h"])
    assert exc.value.text.startswith("usage: kafka-transactions.sh --bootstrap-server host:port describe [-h]\n")


def test_justified_wrap_spreads_the_spaces_to_the_middle_blocks():
    """argparse4j's TextHelper.adjustSpace: a full line's blocks of spaces widened to the width,
    the blocks that get one more in the middle."""
    text = "This tool is used to analyze the transactional state of producers in the cluster."
    assert ap.wrap(text, 0, "", "").split("\n") == [
        "This tool is used to analyze  the  transactional  state of producers in the",
        "cluster."]


# kafka-metadata-quorum's (MetadataQuorumCommand): a required mutually exclusive group, flags
@pytest.mark.parametrize("args, message", [
    (["describe", "--status"], "one of the arguments --bootstrap-server --bootstrap-controller is required"),
    ([*B, "--bootstrap-controller", "c:1", "describe"],
     "argument --bootstrap-controller: not allowed with argument --bootstrap-server"),
    ([*B, "describe", "--status=yes"], "argument --status: ignore implicit argument 'yes'"),
    ([*B, "remove-controller", "-d", "x"], "argument --controller-id/-i is required"),
])
def test_metadata_quorum_refusals_are_argparse4js(args, message):
    from kcli.cli.dropin import quorum

    with pytest.raises(Usage) as exc:
        quorum.read(args)
    assert exc.value.message == f"kafka-metadata-quorum: error: {message}"


def test_metadata_quorum_flags_and_the_groups_usage():
    from kcli.cli.dropin import quorum

    req = quorum.read([*B, "describe", "--re", "--human-readable"])
    assert (req.command, req.get("replication"), req.get("status"), req.get("human_readable")) == (
        "describe", True, False, True)
    usage = quorum.parser().usage()
    assert usage.splitlines()[1:3] == ["                             (--bootstrap-server BOOTSTRAP_SERVER |",
                                       "                             --bootstrap-controller BOOTSTRAP_CONTROLLER)"]
