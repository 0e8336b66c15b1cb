"""Ids typed on the command line, checked once for every command: an id past what a Discord id
(a PostgreSQL bigint) can be is one error line naming the option, never a database traceback
later in whichever command got it. Names are left to the commands."""

from __future__ import annotations

import argparse
import re

# Discord ids are snowflakes: 64-bit, stored as bigint.
MAX_ID = 2**63 - 1
# Options that take an id (or a name) and where argparse keeps them.
ID_OPTIONS = (
    ("guild", "--guild"),
    ("user", "--user"),
    ("channel", "--channel"),
    ("speaker", "--as"),
    ("digest_channel", "--digest-channel"),
)
# An id as typed: digits, a mention (`<@id>`, `<@!id>`, `<#id>`) or `#id`.
_ID = re.compile(r"^(?:<[@#]!?(\d+)>|#?(\d+))$")


def typed_id(text: str) -> int | None:
    """The id `text` spells, else None (a name)."""
    match = _ID.match(text.strip())
    return int(match.group(1) or match.group(2)) if match else None


def id_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the ids given (None: nothing), in one line naming the option."""
    for dest, option in ID_OPTIONS:
        value = getattr(args, dest, None)
        if not isinstance(value, str):
            continue
        number = typed_id(value)
        if number is not None and number > MAX_ID:
            return (
                f"{option}: {value.strip()} is not a Discord id (too large: ids are at most"
                f" {MAX_ID}); give an id or a name"
            )
    return None


def level_problem(level: str) -> str | None:
    """A logging level name that is not one (`--log-level bogus`), in one line."""
    if level.upper() in ("DEBUG", "INFO", "WARNING", "WARN", "ERROR", "CRITICAL"):
        return None
    return f"--log-level: unknown level {level!r}; use DEBUG, INFO, WARNING, ERROR or CRITICAL"
