"""How a subcommand is declared, once: its parser, its options, its handler.

The options several commands share (`--guild`, `--user`, `--yes`, ...) are declared here once,
so a flag reads the same in every `--help`; `command` and `group` are the one way a command or
a group of subcommands joins the parser.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from memory.core.settings import Settings

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
Handler: TypeAlias = Callable[[argparse.Namespace, Settings], object]


@dataclass(frozen=True)
class Option:
    """One `add_argument` call, kept to be made on any parser that takes the option."""

    flags: tuple[str, ...]
    settings: Mapping[str, Any]

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(*self.flags, **self.settings)


def option(*flags: str, **settings: Any) -> Option:
    """An option as `add_argument(*flags, **settings)` would declare it."""
    return Option(flags, settings)


GUILD = option("--guild", required=True, help="guild id or exact name")
USER = option("--user", required=True, help="member id, <@id> mention or name")
YES = option("--yes", action="store_true", help="do not ask for confirmation")


def command(
    subparsers: Subparsers,
    name: str,
    handler: Handler,
    *options: Option,
    help: str,
    description: str | None = None,
    **defaults: object,
) -> argparse.ArgumentParser:
    """A subcommand: `options` in the order `--help` lists them, `handler` run with the parsed
    args and the settings; `defaults` such as `uses_database=False` ride along."""
    parser = subparsers.add_parser(name, help=help, description=description)
    for each in options:
        each.add_to(parser)
    parser.set_defaults(handler=handler, **defaults)
    return parser


def group(subparsers: Subparsers, name: str, *, help: str) -> Subparsers:
    """A command made of subcommands (`memory show`, `user export`): given none, it prints its
    help and exits 2."""
    parser = subparsers.add_parser(name, help=help)
    commands = parser.add_subparsers(dest=f"{name}_command", metavar="SUBCOMMAND")
    parser.set_defaults(handler=lambda args, settings: _usage(parser))
    return commands


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2
