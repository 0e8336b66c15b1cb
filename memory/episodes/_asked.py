"""What a question asks of episodes: a catch-up ("what did I miss?"), a channel, a day."""

from __future__ import annotations

import re
from datetime import date, timedelta

_MISSED = re.compile(
    r"\b(what did i miss|what have i missed|what i missed|catch me up|fill me in"
    r"|что я пропустил|что я пропустила)\b",
    re.IGNORECASE,
)
_CHANNEL = re.compile(r"<#(\d+)>")
_ISO_DAY = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_TALKED = re.compile(
    r"\b(talk(?:ing|ed)? about|discuss(?:ing|ed)?|going on|happened|were we|chat(?:ting|ted)?)\b",
    re.IGNORECASE,
)


def asks_catch_up(text: str) -> bool:
    """'Bot, what did I miss?' and its kin."""
    return _MISSED.search(text) is not None


def asked_channel(text: str) -> int | None:
    match = _CHANNEL.search(text)
    return int(match.group(1)) if match else None


def asked_day(text: str, today: date) -> date | None:
    """The day a question names: today, yesterday, a weekday (the last one), an ISO date."""
    lowered = text.lower()
    if "yesterday" in lowered or "вчера" in lowered:
        return today - timedelta(days=1)
    if "today" in lowered or "сегодня" in lowered:
        return today
    match = _ISO_DAY.search(text)
    if match:
        try:
            return date.fromisoformat(match.group(1))
        except ValueError:
            return None
    for index, name in enumerate(_WEEKDAYS):
        if re.search(rf"\b(on |last )?{name}\b", lowered):
            back = (today.weekday() - index) % 7 or 7
            return today - timedelta(days=back)
    return None


def asks_about_talk(text: str) -> bool:
    """'what were we talking about ...', 'what did we discuss ...'."""
    return _TALKED.search(text) is not None
