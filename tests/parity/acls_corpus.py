"""The kafka-acls corpus: command lines from Apache Kafka's AclCommandTest (its resources, the
--producer/--consumer/--idempotent conveniences, the pattern types, --principal listings, the
argument checks) and from the security documentation (``docs/security``: "Examples"), run through
Apache's tool and ``kcli kafka-acls`` with the same words, on a cluster with StandardAuthorizer
(``apache_kafka_acl``). Each case starts from the same ACLs (``AclState.BASE``).

kafka-acls prints Java HashMaps and HashSets of records whose hash codes hold enums' identity
hashes: its order of resources and entries changes from one JVM to the next. Its stdout is
compared up to that order (``canonical``), every line, header and blank line kept."""

from __future__ import annotations

import time

from confluent_kafka.admin import (AclBinding, AclBindingFilter, AclOperation, AclPermissionType, AdminClient,
                                   ResourcePatternType, ResourceType)

from tests.parity.harness import EXIT, STDERR, STDOUT, Case

B = ("--bootstrap-server", "{b}")
USAGE = {STDERR: "usage-text", EXIT: "usage-exit"}                   # Java: message + help, exit 1
TRACE = {STDOUT: "stack-trace-stdout", EXIT: "usage-exit"}           # Java: error line + trace on stdout
LINT = {STDERR: "acl-lint"}


def canonical(text: str) -> str:
    """``text`` with each header's entry lines sorted under it and the headers sorted, the blank
    lines counted: the same for two outputs that differ only in the Java tool's hash order."""
    groups: list[tuple[str, list[str]]] = []
    blanks = 0
    for line in text.split("\n"):
        if line.startswith(("\t", " \t")) and groups:
            groups[-1][1].append(line.lstrip(" "))
        elif line == "":
            blanks += 1
        else:
            groups.append((line, []))
    return "\n".join(sorted(h + "".join(f"\n{e}" for e in sorted(es)) for h, es in groups)) + f"\n({blanks} blank)"


def acls(*args: str, differs=None, id: str, bootstrap: bool = True) -> Case:
    """A case; one that may change the ACLs (an --add or --remove the tool does not refuse) starts
    from BASE put back ("base"), any other from BASE as the last change left it ("read")."""
    changes = ("--add" in args or "--remove" in args) and differs not in (USAGE, TRACE)
    return Case(id, ("kafka-acls", *(B if bootstrap else ()), *args), (), differs or {},
                "base" if changes else "read", dropin=True, canonical=canonical)


ALICE, BOB, CAROL = "User:alice", "User:bob", "User:carol"

ACL_CASES: list[Case] = [
    # -- --list (AclCommandTest.testAclCli: listing by resource, by principal, every pattern type) --
    acls("--list", id="acls-list"),
    acls("--list", "--topic", "orders", id="acls-list-topic"),
    acls("--list", "--topic", "payments-eu", "--resource-pattern-type", "match", id="acls-list-match"),
    acls("--list", "--topic", "payments-", "--resource-pattern-type", "prefixed", id="acls-list-prefixed"),
    acls("--list", "--topic", "orders", "--resource-pattern-type", "any", id="acls-list-any"),
    acls("--list", "--topic", "orders", "--topic", "payments-", id="acls-list-two-topics"),
    acls("--list", "--group", "billing", id="acls-list-group"),
    acls("--list", "--cluster", id="acls-list-cluster"),
    acls("--list", "--cluster", "--resource-pattern-type", "match", id="acls-list-cluster-match"),
    acls("--list", "--transactional-id", "tx-1", id="acls-list-transactional-id"),
    acls("--list", "--topic", "nothing-here", id="acls-list-none"),
    acls("--list", "--principal", ALICE, id="acls-list-principal"),
    acls("--list", "--principal", ALICE, "--principal", BOB, id="acls-list-principals"),
    acls("--list", "--principal", ALICE, "--topic", "orders", id="acls-list-principal-topic"),
    acls("--list", "--principal", id="acls-list-principal-no-value"),
    acls("--list", "--resource-pattern-type", "LITERAL", "--group=billing", id="acls-list-upper-case"),
    # -- --add (testAclCli, testProducerConsumerCli, testPatternTypes; docs/security's examples) ---
    acls("--add", "--allow-principal", CAROL, "--operation", "Read", "--topic", "shipments", id="acls-add"),
    acls("--add", "--allow-principal", CAROL, "--allow-principal", "User:dave", "--allow-host", "127.0.0.1",
         "--allow-host", "10.0.0.7", "--operation", "Read", "--operation", "Write", "--topic", "shipments",
         "--topic", "returns", id="acls-add-many"),
    acls("--add", "--allow-principal", "User:*", "--allow-host", "*", "--deny-principal", BOB, "--deny-host",
         "198.51.100.3", "--operation", "Read", "--operation", "Write", "--topic", "shipments",
         id="acls-add-docs-deny-example"),
    acls("--add", "--allow-principal", ALICE, "--operation", "Read", "--topic", "orders", id="acls-add-exists"),
    acls("--add", "--allow-principal", ALICE, "--operation", "read", "--operation", "Describe", "--topic", "orders",
         id="acls-add-partly-exists"),
    acls("--add", "--deny-principal", CAROL, "--deny-host", "10.0.0.1", "--operation", "Describe", "--group", "ship",
         id="acls-add-deny"),
    acls("--add", "--allow-principal", CAROL, "--topic", "shipments", id="acls-add-all-operations"),
    acls("--add", "--allow-principal", CAROL, "--operation", "IdempotentWrite", "--cluster", id="acls-add-cluster"),
    acls("--add", "--allow-principal", CAROL, "--operation", "DESCRIBECONFIGS", "--cluster",
         id="acls-add-operation-upper-case"),
    acls("--add", "--allow-principal", CAROL, "--operation", "Write", "--resource-pattern-type", "prefixed",
         "--topic", "ship-", id="acls-add-prefixed"),
    acls("--add", "--allow-principal", CAROL, "--operation", "Write", "--transactional-id", "tx-2",
         id="acls-add-transactional-id"),
    acls("--add", "--allow-principal", CAROL, "--operation", "TwoPhaseCommit", "--transactional-id", "tx-2",
         id="acls-add-two-phase-commit"),
    acls("--add", "--allow-principal", CAROL, "--operation", "Describe", "--delegation-token", "token-1",
         id="acls-add-delegation-token"),
    acls("--add", "--allow-principal", CAROL, "--operation", "CreateTokens", "--operation", "DescribeTokens",
         "--user-principal", "User:eve", id="acls-add-user-principal"),
    acls("--add", "--producer", "--topic", "shipments", "--allow-principal", CAROL, id="acls-add-producer"),
    acls("--add", "--producer", "--topic", "shipments", "--transactional-id", "tx-2", "--idempotent",
         "--allow-principal", CAROL, id="acls-add-producer-transactional-idempotent"),
    acls("--add", "--consumer", "--topic", "shipments", "--group", "ship", "--allow-principal", CAROL,
         id="acls-add-consumer"),
    acls("--add", "--producer", "--consumer", "--topic", "shipments", "--group", "ship", "--allow-principal", CAROL,
         "--allow-host", "127.0.0.1", id="acls-add-producer-consumer"),
    acls("--add", "--producer", "--topic", "ship-", "--resource-pattern-type", "prefixed", "--idempotent",
         "--allow-principal", CAROL, id="acls-add-producer-prefixed-idempotent"),
    acls("--add", "--allow-principal", " User:carol ", "--operation", " Read ", "--topic", " shipments ",
         id="acls-add-trimmed"),
    # -- the linter's cases: stdout as Java's, warnings on stderr ---------------------------------
    acls("--add", "--allow-principal", CAROL, "--operation", "Read", "--resource-pattern-type", "prefixed",
         "--topic", "*", differs=LINT, id="acls-add-prefixed-star"),
    acls("--add", "--allow-principal", CAROL, "--operation", "Read", "--topic", "payments-eu", differs=LINT,
         id="acls-add-overlapping-literal"),
    acls("--add", "--allow-principal", BOB, "--operation", "Delete", "--topic", "shipments", "--allow-host",
         "10.0.0.1", differs=LINT, id="acls-add-shadowed-allow"),
    acls("--add", "--allow-principal", CAROL, "--operation", "Read", "--topic", "shipments", "--allow-host",
         "app1.example.com", differs=LINT, id="acls-add-host-name"),
    acls("--add", "--allow-principal", "user:carol", "--operation", "Read", "--topic", "shipments", differs=LINT,
         id="acls-add-principal-type-case"),
    # -- --remove --force (testAclCli's removal, testPatternTypes' match removal) -----------------
    acls("--remove", "--force", "--topic", "orders", id="acls-remove-all-of-topic"),
    acls("--remove", "--force", "--topic", "orders", "--allow-principal", ALICE, "--operation", "Read",
         id="acls-remove-one"),
    acls("--remove", "--force", "--topic", "payments-eu", "--resource-pattern-type", "match",
         id="acls-remove-match"),
    acls("--remove", "--force", "--group", "billing", "--resource-pattern-type", "any", id="acls-remove-any"),
    acls("--remove", "--force", "--cluster", "--allow-principal", BOB, "--operation", "Describe",
         id="acls-remove-cluster"),
    acls("--remove", "--force", "--producer", "--topic", "orders", "--allow-principal", BOB,
         id="acls-remove-producer"),
    acls("--remove", "--force", "--topic", "orders", "--group", "billing", id="acls-remove-two-resources"),
    acls("--remove", "--force", "--topic", "nothing-here", id="acls-remove-nothing"),
    # -- the tool's checks (AclCommandTest.testInvalidArgs, testPatternTypes' add refusals) ------
    acls("--topic", "orders", differs=USAGE, id="acls-no-action"),
    acls("--add", "--list", "--topic", "orders", differs=USAGE, id="acls-two-actions"),
    acls("--list", bootstrap=False, differs=USAGE, id="acls-no-bootstrap"),
    acls("--list", "--bootstrap-controller", "127.0.0.1:1", differs=USAGE, id="acls-both-bootstraps"),
    acls("--list", "--producer", differs=USAGE, id="acls-list-producer"),
    acls("--list", "--topic", "orders", "--allow-principal", CAROL, differs=USAGE, id="acls-list-allow-principal"),
    acls("--add", "--producer", "--operation", "Read", "--topic", "t", "--allow-principal", CAROL, differs=USAGE,
         id="acls-producer-operation"),
    acls("--add", "--consumer", "--deny-principal", CAROL, "--topic", "t", "--group", "g", differs=USAGE,
         id="acls-consumer-deny"),
    acls("--remove", "--principal", CAROL, "--topic", "t", differs=USAGE, id="acls-principal-without-list"),
    acls("--add", "--producer", "--allow-principal", CAROL, differs=USAGE, id="acls-producer-no-topic"),
    acls("--add", "--idempotent", "--topic", "t", "--allow-principal", CAROL, differs=USAGE,
         id="acls-idempotent-no-producer"),
    acls("--add", "--consumer", "--topic", "t", "--allow-principal", CAROL, differs=USAGE, id="acls-consumer-no-group"),
    acls("--add", "--consumer", "--topic", "t", "--group", "g", "--cluster", "--allow-principal", CAROL,
         differs=USAGE, id="acls-consumer-cluster"),
    acls("--add", "--topic", "t", differs=USAGE, id="acls-add-no-principal"),
    acls("--add", "--allow-principal", CAROL, differs=USAGE, id="acls-add-no-resource"),
    acls("--add", "--topic", "t", "--allow-principal", CAROL, "--resource-pattern-type", "match", differs=USAGE,
         id="acls-add-match"),
    acls("--add", "--topic", "t", "--allow-principal", CAROL, "--resource-pattern-type", "any", differs=USAGE,
         id="acls-add-any"),
    acls("--add", "--allow-principal", CAROL, "--operation", "Write", "--group", "g", differs=USAGE,
         id="acls-add-group-write"),
    acls("--add", "--topic", "t", "--allow-principal", "carol", differs=TRACE, id="acls-add-principal-no-type"),
    acls("--list", "--topic", "t", "--resource-pattern-type", "fancy", differs=TRACE, id="acls-list-bad-pattern-type"),
    acls("--add", "--topic", "t", "--allow-principal", CAROL, "--unknown", differs=USAGE, id="acls-unknown-option"),
]


_RESOURCE = {"TOPIC": ResourceType.TOPIC, "GROUP": ResourceType.GROUP, "CLUSTER": ResourceType.BROKER,
             "TRANSACTIONAL_ID": ResourceType.TRANSACTIONAL_ID}


_ANY = AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, None, None, AclOperation.ANY,
                        AclPermissionType.ANY)


class AclState:
    """The ACLs every case starts from, put back before each tool runs (as the cluster's
    super user, ANONYMOUS on its PLAINTEXT listener), with confluent-kafka's admin client."""

    BASE = [("TOPIC", "orders", "LITERAL", ALICE, "*", "READ", "ALLOW"),
            ("TOPIC", "orders", "LITERAL", BOB, "*", "WRITE", "ALLOW"),
            ("TOPIC", "payments-", "PREFIXED", BOB, "*", "READ", "ALLOW"),
            ("TOPIC", "*", "LITERAL", BOB, "10.0.0.1", "DELETE", "DENY"),
            ("GROUP", "billing", "LITERAL", ALICE, "*", "READ", "ALLOW"),
            ("CLUSTER", "kafka-cluster", "LITERAL", BOB, "*", "DESCRIBE", "ALLOW"),
            ("TRANSACTIONAL_ID", "tx-1", "LITERAL", ALICE, "*", "WRITE", "ALLOW")]

    def __init__(self, bootstrap: str, config: dict[str, str] | None = None):
        self.values = {"b": bootstrap}
        self.admin = AdminClient({"bootstrap.servers": bootstrap, **(config or {})})
        self.changed = True                   # nothing known of the cluster's ACLs yet

    def __enter__(self) -> "AclState":
        return self

    def __exit__(self, *exc) -> None:
        self._delete_all()

    def prepare(self, step: str) -> None:
        """The BASE ACLs put back: before each tool of a case that may change them ("base"), and
        before the first tool of a case that reads them ("read") after one that may have."""
        assert step in ("base", "read"), step
        if step == "read" and not self.changed:
            return
        self.changed = step == "base"
        self._delete_all()
        bindings = [AclBinding(_RESOURCE[t], n, ResourcePatternType[pt], p, h, AclOperation[o], AclPermissionType[perm])
                    for t, n, pt, p, h, o, perm in self.BASE]
        for fut in self.admin.create_acls(bindings, request_timeout=30).values():
            fut.result()
        self._until(len(self.BASE))

    def _delete_all(self) -> None:
        # every ACL, of resource types confluent-kafka names or not (delegation tokens, users)
        for fut in self.admin.delete_acls([_ANY], request_timeout=30).values():
            fut.result()
        self._until(0)

    def _until(self, count: int) -> None:
        """The broker's authorizer applies the controller's records after the answer: wait (10 s at
        most) until DescribeAcls sees ``count`` bindings."""
        seen = -1
        for _ in range(200):
            seen = len(self.admin.describe_acls(_ANY, request_timeout=30).result())
            if seen == count:
                return
            time.sleep(0.05)
        raise AssertionError(f"the cluster shows {seen} ACLs, not {count}, 10 s after the change")
