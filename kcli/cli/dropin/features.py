"""kafka-features' command line (Apache Kafka 4.4's FeatureCommand, on argparse4j): its options,
subcommands, help texts and the checks it makes before its first request, in the tool's order and
words. Pure."""

from __future__ import annotations

from kcli import features as kf
from kcli.cli.dropin import argparse4j as ap
from kcli.cli.dropin.common import HelpScreen, Usage
from kcli.datatypes import datatype, field

PROG = "kafka-features"
UPGRADE, SAFE_DOWNGRADE, UNSAFE_DOWNGRADE = 1, 2, 3
OFFLINE = ("version-mapping", "feature-dependencies")        # no cluster: Kafka's own tables


def parser() -> ap.Parser:
    p = ap.Parser(PROG, description="This tool manages feature flags in Kafka.",
                  subparsers_metavar="{describe,upgrade,downgrade,disable,version-mapping,feature-dependencies}")
    p.add("-h", "--help", help="show this help message and exit", type="flag", action="help")
    bootstrap = p.exclusive()
    p.add("--bootstrap-server", help="A comma-separated list of host:port pairs to use for establishing the "
          "connection to the Kafka cluster.", exclusive=bootstrap)
    p.add("--bootstrap-controller", help="A comma-separated list of host:port pairs to use for establishing the "
          "connection to the KRaft quorum.", exclusive=bootstrap)
    p.add("--command-config", help="Property file containing configs to be passed to Admin Client.")

    s = p.sub("describe", "Describes the current active feature flags.")
    s.add("--node-id", help="The node id to which the requests should be sent. If not specified, the requests "
          "will be sent to an arbitrary controller/broker.", type="Integer")
    mapping = ("The release version to {op} all features to. For example, 3.9-IV0 will set metadata.version=21 "
               "and kraft.version=1. Use the version-mapping command to learn which features will be set for any "
               "given version.")
    for op, example in (("upgrade", "3.3-IV3"), ("downgrade", "3.3-IV0")):
        s = p.sub(op, f"{op.capitalize()} one or more feature flags.")
        s.add("--metadata", help=f"DEPRECATED -- The level to which we should {op} the metadata. For example, "
              f"{example}.")
        s.add("--release-version", help=mapping.format(op="update" if op == "upgrade" else op))
        s.add("--feature", help=f"A feature {op} we should perform, in feature=level format. For example: "
              "`metadata.version=5`.", action="append")
        if op == "downgrade":
            s.add("--unsafe", help="Perform this downgrade even if it may irreversibly destroy metadata.",
                  action="store_true")
        s.add("--dry-run", help=f"Validate this {op}, but do not perform it.", action="store_true")
    s = p.sub("disable", "Disable one or more feature flags. This is the same as downgrading the version to zero.")
    s.add("--feature", help="A feature flag to disable.", action="append")
    s.add("--unsafe", help="Disable this feature flag even if it may irreversibly destroy metadata.",
          action="store_true")
    s.add("--dry-run", help="Perform a dry-run of this disable operation.", action="store_true")
    s = p.sub("version-mapping", "Look up the corresponding features for a given metadata version. Using the "
              "command with no --release-version  argument will return the mapping for the latest stable metadata "
              "version")
    s.add("--release-version", help="The release version to use for the corresponding feature mapping. The "
          f"minimum is {kf.METADATA_VERSIONS[0]}; the default is {kf.LATEST_PRODUCTION}")
    s = p.sub("feature-dependencies", "Look up dependencies for a given feature version. If the feature is not "
              "known or the version not yet defined, an error is thrown. Multiple features can be specified.")
    s.add("--feature", help="The feature and version to look up dependencies for, in feature=version format. "
          "For example: `metadata.version=5`.", required=True, action="append")
    return p


@datatype
class FeaturesRequest:
    command: str
    values: dict[str, object] = field(default_factory=dict)
    # upgrade, downgrade, disable: (feature, level, upgrade type), in the request's order
    updates: list[tuple[str, int, int]] = field(default_factory=list)
    notices: list[tuple[str, str]] = field(default_factory=list)

    def get(self, name: str):
        return self.values.get(name)

    @property
    def bootstrap(self) -> str:
        return str(self.values["bootstrap_server"])

    @property
    def command_config(self) -> str | None:
        value = self.values.get("command_config")
        return None if value is None else str(value)


def read(args: list[str]) -> FeaturesRequest:
    """The parsed line, or: HelpScreen (-h: exit 0), Usage: argparse4j's error as FeatureCommand
    words it (``Command line error: ... Type --help for help.``), or one of the checks it makes
    before its first request, in its words (it makes them after creating its admin client, and
    exits 1)."""
    try:
        values = parser().parse(args)
    except ap.HelpRequested as exc:
        raise HelpScreen(exc.parser.help_text(), code=0) from None
    except ap.ArgparseError as exc:
        raise Usage(f"Command line error: {exc.message}. Type --help for help.") from None
    request = FeaturesRequest(str(values.pop("command")), values)
    if request.command not in OFFLINE:
        check(request)
    return request


def name_and_level(text: str) -> tuple[str, int]:
    """parseNameAndLevel: ``feature=level``, both trimmed, the level a Java short."""
    name, equals, level = text.partition("=")
    if not equals:
        raise Usage(f"Can't parse feature=level string {text}: equals sign not found.")
    number = ap.java_number(level.strip(), "Short")
    if isinstance(number, str):
        raise Usage(f"Can't parse feature=level string {text}: unable to parse {level.strip()} as a short.")
    return name.strip(), number


def check(req: FeaturesRequest) -> None:
    get = req.values.get
    if get("bootstrap_server") is None and get("bootstrap_controller") is None:
        raise Usage("Command line error: You must specify either --bootstrap-controller or --bootstrap-server.. "
                    "Type --help for help.")
    if req.command == "describe":
        node = get("node_id")
        if node is not None and int(node) < 0:          # type: ignore[call-overload]
            raise Usage(f"Invalid node id {node}: must be non-negative.")
        return
    op = req.command
    kind = UPGRADE if op == "upgrade" else UNSAFE_DOWNGRADE if get("unsafe") else SAFE_DOWNGRADE
    updates: dict[str, tuple[int, int]] = {}
    if op == "disable":
        for name in get("feature") or []:           # type: ignore[attr-defined]
            if str(name) in updates:
                raise Usage(f"Feature {name} was specified more than once.")
            updates[str(name)] = (0, kind)
    else:
        _upgrade_or_downgrade(req, kind, updates)
    if not updates:
        raise Usage(f"You must specify at least one feature to {op}")
    from kcli import javaorder

    req.updates = [(name, *updates[name]) for name in javaorder.strings(updates)]     # a HashMap's order


def _upgrade_or_downgrade(req: FeaturesRequest, kind: int, updates: dict[str, tuple[int, int]]) -> None:
    get = req.values.get
    metadata, listed, release = get("metadata"), get("feature"), get("release_version")
    if release is not None and (metadata is not None or listed is not None):
        raise Usage("Can not specify `release-version` with other feature flags.")
    if release is not None:
        level = _metadata_level(str(release))
        updates[kf.METADATA_VERSION] = (level, kind)
        for name in kf.FEATURE_MAX_LEVELS:
            default = kf.default_level(name, level)
            if kind != UPGRADE or default > 0:          # an upgrade to 0 is not sent
                updates[name] = (default, kind)
        return
    if metadata is not None:
        req.notices.append(("stdout", " `metadata` flag is deprecated and may be removed in a future release."))
        updates[kf.METADATA_VERSION] = (_metadata_level(str(metadata)), kind)
    for text in listed or []:                           # type: ignore[attr-defined]
        name, level = name_and_level(str(text))
        if level < 1 and kind == UPGRADE:               # FeatureUpdate's own check
            raise Usage("The upgradeType flag should be set to SAFE_DOWNGRADE or UNSAFE_DOWNGRADE when the "
                        f"provided maxVersionLevel:{level} is < 1.")
        if name in updates:
            raise Usage(f"Feature {name} was specified more than once.")
        updates[name] = (level, kind)


def _metadata_level(text: str) -> int:
    try:
        return kf.metadata_version_level(text)
    except ValueError as exc:
        raise Usage(str(exc)) from None


def line_with(args: list[str], before, tool: str) -> list[str]:
    """As kafka-metadata-quorum's: the bootstrap servers given before the tool's name put first."""
    from kcli.cli.dropin.quorum import line_with as quorum_line_with

    return quorum_line_with(args, before, tool)


def _options() -> list:
    """The long options of every command, as jopt's Opt (shell completion and the man page)."""
    from kcli.cli.dropin.jopt import FLAG, REQUIRED, Opt

    p = parser()
    seen: dict[str, Opt] = {}
    for arg in [*p.args, *(a for s in p.subparsers for a in s.args)]:
        name = arg.dest.replace("_", "-")
        seen.setdefault(name, Opt(name, arg.help, REQUIRED if arg.takes_value else FLAG))
    return list(seen.values())


def __getattr__(name: str):
    if name == "OPTIONS":                   # built when asked: a command line never needs it
        return _options()
    raise AttributeError(name)
