"""Settings errors worded for the admin: one line naming the variable and the closest valid
name or value, instead of pydantic's report."""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping
from pathlib import Path

from pydantic import ValidationError

# `.env` is shared with Docker Compose, which reads its own variables from it.
COMPOSE_PREFIXES = ("POSTGRES_", "COMPOSE_")
# In the process environment only names that look like ours are checked (it holds many others).
OUR_PREFIXES = ("DISCORD_", "GEMINI_", "OPENAI_", "LLM_", "MEMORYBOT_", "SHARD_", "JOB_")


class SettingsError(Exception):
    """A setting is missing or malformed; the message names it in one line."""


def _suggest(name: str, known: set[str], cutoff: float) -> str | None:
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=cutoff)
    return close[0] if close else None


def check_known_names(
    env_keys: list[str], environ: Mapping[str, str], env_file: Path | None, *, known: set[str]
) -> None:
    """Every `.env` key must be a setting (`known`); in the environment, names with our
    prefixes that are unknown but close to a setting (a typo) are errors too."""
    where = f" in {env_file}" if env_file is not None else ""
    for key in env_keys:
        name = key.strip().upper()
        if name in known or name.startswith(COMPOSE_PREFIXES):
            continue
        close = _suggest(name, known, 0.6)
        hint = f"did you mean {close}?" if close else "see .env.example for the valid names"
        raise SettingsError(f"setting {name}{where}: not a memorybot setting ({hint})")
    for key in environ:
        name = key.upper()
        if name in known or not name.startswith(OUR_PREFIXES):
            continue
        close = _suggest(name, known, 0.8)
        if close is None:
            continue  # e.g. OPENAI_ORG_ID for another tool, or an image's build variable
        raise SettingsError(
            f"environment variable {name}: not a memorybot setting (did you mean {close}?)"
        )


_TYPE_WORDS = {
    "int_parsing": "expected a whole number",
    "int_from_float": "expected a whole number",
    "float_parsing": "expected a number",
    "bool_parsing": "expected true or false",
    "literal_error": "expected one of the listed values",
}


def describe_error(error: ValidationError) -> str:
    """The first problem as one line: `setting NAME: what is wrong (what would be right)`."""
    first = error.errors()[0]
    location = "_".join(str(part) for part in first.get("loc", ())).upper()
    kind = str(first.get("type", ""))
    context = first.get("ctx") or {}
    if kind == "value_error" and "error" in context:
        message = str(context["error"])
    elif kind in _TYPE_WORDS:
        message = _TYPE_WORDS[kind]
    else:
        message = str(first.get("msg", "invalid value")).replace("Input should be", "must be")
    if kind != "value_error" and location and "secret" not in kind:
        value = first.get("input")
        if isinstance(value, str) and "TOKEN" not in location and "KEY" not in location:
            message += f", got {value!r}"
    if not location:
        name, sep, rest = message.partition(": ")
        if sep and name.replace("_", "").isalpha() and name.isupper():
            location, message = name, rest
    return f"setting {location}: {message}" if location else f"settings: {message}"


POSTGRES_URL_FORM = "postgresql://USER:PASSWORD@HOST:5432/DBNAME"


def check_database_url(url: str) -> None:
    """A ValueError in words when DATABASE_URL is not a PostgreSQL URL asyncpg can use.

    The URL itself is never repeated: it usually carries a password.
    """
    text = url.strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        raise ValueError(f"not a URL (expected {POSTGRES_URL_FORM})")
    if scheme.lower() not in ("postgresql", "postgres"):
        raise ValueError(
            f"{scheme!r} is not PostgreSQL: memorybot stores in PostgreSQL only "
            f"(expected {POSTGRES_URL_FORM})"
        )
    netloc = rest.split("/", 1)[0].split("?", 1)[0].rpartition("@")[2]
    for host in netloc.split(","):
        if host.startswith("["):  # [::1]:5432
            host = host.partition("]")[2]
        _, colon, port = host.rpartition(":")
        if colon and not (port.isdigit() and 0 < int(port) < 65536):
            raise ValueError(f"port {port!r} is not a port number (expected {POSTGRES_URL_FORM})")


def check_env_lines(env_file: Path) -> None:
    """A line of `.env` that is not `NAME=value` (or a comment) is named by file:line rather
    than silently skipped, as python-dotenv does. Its text is not shown: it may be a secret."""
    from dotenv.parser import parse_stream

    with env_file.open(encoding="utf-8", errors="replace") as stream:
        for binding in parse_stream(stream):
            if binding.error:
                text = binding.original.string
                # A statement's text starts with the blank lines before it.
                line = binding.original.line + text[: len(text) - len(text.lstrip())].count("\n")
                raise SettingsError(
                    f"{env_file}:{line}: not a setting line (expected "
                    "NAME=value; quote a value that has spaces or #)"
                )


def describe_source_error(error: Exception) -> str:
    """pydantic-settings' SettingsError (a secret file it could not read, ...) as one line."""
    found = re.search(r'field "(\w+)" from source "(\w+)"', str(error))
    cause = error.__cause__
    if found is None:
        return f"settings: {error}" + (f" ({cause})" if cause else "")
    name, source = found.group(1).upper(), found.group(2)
    if isinstance(cause, OSError):
        where = f" {cause.filename}" if cause.filename else ""
        reason = cause.strerror or type(cause).__name__
        hint = ""
        if isinstance(cause, PermissionError):
            hint = f"; make it readable by this process (uid {os.geteuid()}, gid {os.getegid()})"
        what = "the secret file" if "Secrets" in source else "the file"
        return f"setting {name}: cannot read {what}{where}: {reason}{hint}"
    if isinstance(cause, UnicodeDecodeError):
        return f"setting {name}: its secret file is not UTF-8 text"
    return f"setting {name}: {cause or error}"
