"""The verb groups of the design card (verb first: ``kcli describe topics``). Each command family
module registers its commands on these."""

from __future__ import annotations

import typer

_common = dict(no_args_is_help=True, add_completion=False, rich_markup_mode=None)

list_app = typer.Typer(help="List topics or consumer groups.", **_common)
describe_app = typer.Typer(help="Describe topics, consumer groups or configs.", **_common)
create_app = typer.Typer(help="Create a topic.", **_common)
alter_app = typer.Typer(help="Alter a topic's partition count or configs.", **_common)
delete_app = typer.Typer(help="Delete topics or consumer groups.", **_common)
broker_app = typer.Typer(help="The embedded Kafka-protocol broker (development and tests).", **_common)
