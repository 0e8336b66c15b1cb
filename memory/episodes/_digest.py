"""The daily digest: yesterday's episodes of public channels, in at most DIGEST_CHARS.

Composed from stored episode summaries (no call of its own), by a job with one dedupe key per
guild-day; the `episode_digests` primary key keeps it once however many workers run and across
restarts, and a bot process claims and posts it (`next_digest`/`digest_posted`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from memory.core.text import truncate
from memory.episodes._views import Episode
from memory.language import content_tokens

DIGEST_CHARS = 1_500
_TIME = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


class InvalidDigestTime(ValueError):
    """Not an HH:MM time."""


def parse_digest_time(text: str) -> str:
    """`8:00` -> `08:00`; InvalidDigestTime otherwise."""
    match = _TIME.match(text.strip())
    if match is None:
        raise InvalidDigestTime(f"{text!r} is not a time of day; use HH:MM, such as 08:00")
    return f"{int(match.group(1)):02d}:{match.group(2)}"


def due_day(now: datetime, timezone: str, at: str) -> date | None:
    """The day whose digest is due at `now` (yesterday, local), or None before `at` today."""
    local = now.astimezone(ZoneInfo(timezone))
    hours, minutes = (int(part) for part in at.split(":"))
    if local.time() < time(hours, minutes):
        return None
    return local.date() - timedelta(days=1)


def day_bounds(day: date, timezone: str) -> tuple[datetime, datetime]:
    zone = ZoneInfo(timezone)
    start = datetime.combine(day, time(), zone)
    return start, datetime.combine(day + timedelta(days=1), time(), zone)


# Names shown per episode; the rest are counted ("and 37 others").
SHOWN_PARTICIPANTS = 3
# How long each episode's summary may be, tried in turn until every episode fits.
SUMMARY_LENGTHS = (200, 120, 60, 0)


def participants(member_ids: Sequence[int], names: Mapping[int, str]) -> str:
    """`Alice, Bob, Carol and 37 others`: a busy episode does not crowd out the others."""
    shown = [names.get(user_id, f"user {user_id}") for user_id in member_ids[:SHOWN_PARTICIPANTS]]
    rest = len(member_ids) - len(shown)
    if rest > 0:
        return f"{', '.join(shown)} and {rest} other{'s' if rest > 1 else ''}"
    return ", ".join(shown)


def compose(
    day: date,
    episodes: Sequence[Episode],
    names: Mapping[int, str],
    *,
    max_chars: int = DIGEST_CHARS,
) -> str:
    """The digest text ('' when there is nothing to say): one entry per episode, oldest
    first, with who took part (a few named), its open loops and a jump link; channels as
    `<#id>` (they never ping). Summaries are shortened until every episode fits; only when
    even bare entries do not is the rest counted."""
    said = sorted(
        (episode for episode in episodes if _worth_telling(episode, names)),
        key=lambda item: (item.started_at, item.id),
    )
    if not said:
        return ""
    head = f"**What happened on {day:%A, %B} {day.day}**"
    for length in SUMMARY_LENGTHS:
        entries = [_entry(episode, names, length) for episode in said]
        if len("\n".join([head, *entries])) <= max_chars:
            return "\n".join([head, *entries])
    lines = [head]
    for shown, entry in enumerate(entries):
        rest = len(said) - shown - 1
        tail = f"\n…and {rest} more" if rest else ""
        if len("\n".join([*lines, entry])) + len(tail) > max_chars:
            lines.append(f"…and {len(said) - shown} more")
            break
        lines.append(entry)
    return "\n".join(lines)


# A lone message is told when its title and summary say this much ("next trip: Saturday,
# meet at the station at 8"), not when it is a greeting or a "lol".
_ANNOUNCEMENT_WORDS = 4


def _worth_telling(episode: Episode, names: Mapping[int, str]) -> bool:
    """A conversation, or one message that announces something."""
    if episode.message_count > 1:
        return True
    said = f"{episode.title} {_without_roll_call(episode.summary)}"
    speakers = [names[user_id] for user_id in episode.member_ids if user_id in names]
    told = content_tokens(said, ignore=speakers)
    return episode.message_count == 1 and len(told) >= _ANNOUNCEMENT_WORDS


def _entry(episode: Episode, names: Mapping[int, str], summary_chars: int) -> str:
    entry = (
        f"• <#{episode.channel_id}> **{episode.label}** ({participants(episode.member_ids, names)})"
    )
    summary = _without_roll_call(episode.summary)
    summary = truncate(summary, summary_chars) if summary_chars and summary else ""
    if summary:
        entry += f": {summary}"
    if episode.open_loops:
        entry += f" Open: {'; '.join(episode.open_loops[:2])}"
    return entry + f" <{episode.jump_url}>"


def _without_roll_call(summary: str) -> str:
    """The offline summary opens with who talked ("Alice, Bob talked."): the entry already
    says who took part, so it is not said twice."""
    head, found, rest = summary.partition(" talked. ")
    return rest if (found and "," in head) or (found and " " not in head.strip()) else summary
