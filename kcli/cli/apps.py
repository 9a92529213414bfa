"""The command tree's skeleton: the root app and the verb groups of the design card (verb first:
``kcli describe topics``). Each command family module registers its commands on these; which
modules are imported is ``kcli.cli.main``'s choice (only the one a command line needs)."""

from __future__ import annotations

import typer

_common = dict(no_args_is_help=True, add_completion=False, rich_markup_mode=None)

root_app = typer.Typer(
    name="kcli", **_common,
    help="Operate Apache Kafka: topics, consumer groups and offsets, with partition and group "
         "creation times (KIP-1327, KIP-1282), max-timestamp offsets (KIP-734) and timestamp "
         "bounds (KIP-937). Global options may be given anywhere on the line.",
)
list_app = typer.Typer(help="List topics or consumer groups.", **_common)
describe_app = typer.Typer(help="Describe topics, consumer groups or configs.", **_common)
create_app = typer.Typer(help="Create a topic.", **_common)
alter_app = typer.Typer(help="Alter a topic's partition count or configs.", **_common)
delete_app = typer.Typer(help="Delete topics or consumer groups.", **_common)
broker_app = typer.Typer(help="The embedded Kafka-protocol broker (development and tests).", **_common)

for _name, _group in [("list", list_app), ("describe", describe_app), ("create", create_app),
                      ("alter", alter_app), ("delete", delete_app), ("broker", broker_app)]:
    root_app.add_typer(_group, name=_name)
