"""Who asks a search, and what a question to the bot looks like: what a search leaves out
besides the viewer's filter."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Asking:
    """Who asks, from where: what the search must leave out besides the viewer's filter."""

    message_id: int | None = None  # the message being answered
    bot_id: int | None = None


def addressing(bot_name: str) -> str | None:
    """A PostgreSQL regex for a message starting with the bot's name (a question to it)."""
    name = bot_name.strip()
    if not name:
        return None
    return r"^\s*@?" + re.sub(r"([^\w\s])", r"\\\1", name) + r"($|[^[:alnum:]_-])"
