"""kafka-acls' command line (Apache Kafka 4.4's AclCommand): every option the tool has, its
checks in the tool's order (AclCommandOptions.checkArgs). Pure."""

from __future__ import annotations

from kcli.cli.dropin.common import HELP, VERSION, Usage, check_invalid, start
from kcli.cli.dropin.jopt import OPTIONAL, REQUIRED, Opt
from kcli.datatypes import datatype

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.cli.dropin import jopt

_CONNECT = ("A list of host/port pairs to use for establishing the connection to the Kafka cluster. This list "
            "should be in the form host1:port1,host2:port2,... This config is required for acl management using "
            "admin client API.")
_OPERATIONS = ("TwoPhaseCommit", "All", "Delete", "Alter", "Create", "AlterConfigs", "Describe", "DescribeConfigs",
               "CreateTokens", "Read", "Write", "IdempotentWrite", "ClusterAction", "DescribeTokens")

OPTIONS = [
    Opt("bootstrap-server", _CONNECT, REQUIRED, describe="server to connect to"),
    Opt("bootstrap-controller", _CONNECT, REQUIRED, describe="controller to connect to"),
    Opt("command-config", "A property file containing configs to be passed to Admin Client.", OPTIONAL,
        describe="command-config"),
    Opt("topic", "topic to which ACLs should be added or removed. A value of '*' indicates ACL should apply to all "
        "topics.", REQUIRED, describe="topic"),
    Opt("cluster", "Add/Remove cluster ACLs."),
    Opt("group", "Consumer Group to which the ACLs should be added or removed. A value of '*' indicates the ACLs "
        "should apply to all groups.", REQUIRED, describe="group"),
    Opt("transactional-id", "The transactionalId to which ACLs should be added or removed. A value of '*' "
        "indicates the ACLs should apply to all transactionalIds.", REQUIRED, describe="transactional-id"),
    Opt("idempotent", "Enable idempotence for the producer. This should be used in combination with the --producer "
        "option. Note that idempotence is enabled automatically if the producer is authorized to a particular "
        "transactional-id."),
    Opt("delegation-token", "Delegation token to which ACLs should be added or removed. A value of '*' indicates "
        "ACL should apply to all tokens.", REQUIRED, describe="delegation-token"),
    Opt("resource-pattern-type", "The type of the resource pattern or pattern filter. When adding acls, this "
        "should be a specific pattern type, e.g. 'literal' or 'prefixed'. When listing or removing acls, a specific "
        "pattern type can be used to list or remove acls from specific resource patterns, or use the filter values "
        "of 'any' or 'match', where 'any' will match any pattern type, but will match the resource name exactly, "
        "where as 'match' will perform pattern matching to list or remove all acls that affect the supplied "
        "resource(s). WARNING: 'match', when used in combination with the '--remove' switch, should be used with "
        "care.", REQUIRED, type="ANY|MATCH|LITERAL|PREFIXED", default="LITERAL"),
    Opt("add", "Indicates you are trying to add ACLs."),
    Opt("remove", "Indicates you are trying to remove ACLs."),
    Opt("list", "List ACLs for the specified resource, use --topic <topic> or --group <group> or --cluster to "
        "specify a resource."),
    Opt("operation", "Operation that is being allowed or denied. Valid operation names are: \n"
        + "".join(f"\t{o}\n" for o in _OPERATIONS), REQUIRED, default="All"),
    Opt("allow-principal", "principal is in principalType:name format. Note that principalType must be supported "
        "by the Authorizer being used. For example, User:'*' is the wild card indicating all users.", REQUIRED,
        describe="allow-principal"),
    Opt("deny-principal", "principal is in principalType:name format. By default anyone not added through "
        "--allow-principal is denied access. You only need to use this option as negation to already allowed set. "
        "Note that principalType must be supported by the Authorizer being used. For example if you wanted to "
        "allow access to all users in the system but not test-user you can define an ACL that allows access to "
        "User:'*' and specify --deny-principal=User:test@EXAMPLE.COM. AND PLEASE REMEMBER DENY RULES TAKES "
        "PRECEDENCE OVER ALLOW RULES.", REQUIRED, describe="deny-principal"),
    Opt("principal", "List ACLs for the specified principal. principal is in principalType:name format. Note that "
        "principalType must be supported by the Authorizer being used. Multiple --principal option can be passed.",
        OPTIONAL, describe="principal"),
    Opt("allow-host", "Host from which principals listed in --allow-principal will have access. If you have "
        "specified --allow-principal then the default for this option will be set to '*' which allows access from "
        "all hosts.", REQUIRED, describe="allow-host"),
    Opt("deny-host", "Host from which principals listed in --deny-principal will be denied access. If you have "
        "specified --deny-principal then the default for this option will be set to '*' which denies access from "
        "all hosts.", REQUIRED, describe="deny-host"),
    Opt("producer", "Convenience option to add/remove ACLs for producer role. This will generate ACLs that allows "
        "WRITE,DESCRIBE and CREATE on topic."),
    Opt("consumer", "Convenience option to add/remove ACLs for consumer role. This will generate ACLs that allows "
        "READ,DESCRIBE on topic and READ on group."),
    Opt("force", "Assume Yes to all queries and do not prompt."),
    Opt("user-principal", "Specifies a user principal as a resource in relation with the operation. For instance "
        "one could grant CreateTokens or DescribeTokens permission on a given user principal.", REQUIRED,
        describe="user-principal"),
    HELP, VERSION,
]


@datatype
class AclsRequest:
    action: str                  # add, remove or list
    parsed: jopt.Parsed
    bootstrap: str


def read(args: list[str]) -> AclsRequest:
    parsed = start(OPTIONS, args, "This tool helps to manage acls on kafka.")
    has = parsed.has
    if has("bootstrap-server") and has("bootstrap-controller"):
        raise Usage("Only one of --bootstrap-server or --bootstrap-controller must be specified")
    if not has("bootstrap-server") and not has("bootstrap-controller"):
        raise Usage("One of --bootstrap-server or --bootstrap-controller must be specified")
    if has("add") + has("remove") + has("list") != 1:
        raise Usage("Command must include exactly one action: --list, --add, --remove. ")
    check_invalid(parsed, "list", ["producer", "consumer", "allow-host", "allow-principal", "deny-host",
                                   "deny-principal"])
    for convenience in ("producer", "consumer"):
        check_invalid(parsed, convenience, ["operation", "deny-principal", "deny-host"])
    if has("principal") and not has("list"):
        raise Usage("The --principal option is only available if --list is set")
    if has("producer") and not has("topic"):
        raise Usage("With --producer you must specify a --topic")
    if has("idempotent") and not has("producer"):
        raise Usage("The --idempotent option is only available if --producer is set")
    if has("consumer") and (not has("topic") or not has("group") or (
            not has("producer") and (has("cluster") or has("transactional-id")))):
        raise Usage("With --consumer you must specify a --topic and a --group and no --cluster or "
                    "--transactional-id option should be specified.")
    if has("bootstrap-controller"):
        raise Usage("kcli kafka-acls connects to brokers: use --bootstrap-server")
    action = "add" if has("add") else "remove" if has("remove") else "list"
    return AclsRequest(action, parsed, parsed.texts("bootstrap-server")[-1])
