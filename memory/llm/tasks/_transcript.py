"""Compact transcripts: what a model reads of chat, one short line per message.

    14:05 alice: I got the job!
    bob ↩ alice: congrats @alice
    15:02 carol: back from the gym

Wave 1 wrapped each message in an XML element with its timestamp, ids and author id: about 63
tokens of markup for 12 of content. A line with the local time and the author's name carries
what a summary needs; the time is written only on a stretch's first line and the first line of
each new hour (about three tokens a line saved; a note rarely needs the minute). No ids at all:
answers name members as the transcript does (`Sam: note`), and a short legend lists only the
names the chat does not explain (aliases, shorter notes). Text is XML-escaped and a
line break inside a message is shown as ` ↵ `, so no message can start a line that looks like
another member speaking or close the transcript.

The few words around a pass's transcript live here too: who gets no note (`not_targets`), the
aliases the stretch actually uses (`named_aliases`), the `<targets>` block.
"""

from __future__ import annotations

from zoneinfo import ZoneInfo

from memory.llm.tasks._schemas import PromptMember, PromptMessage
from prompts.loader import Raw, escape_body

_NEWLINES = str.maketrans({"\n": " ↵ ", "\r": " ", "\u2028": " ↵ ", "\u2029": " ↵ "})


def _one_line(text: str) -> str:
    return escape_body(text.translate(_NEWLINES))


def compact_lines(messages: list[PromptMessage], timezone: str = "UTC") -> list[str]:
    """One escaped line per message: `[HH:MM ]name[ ↩ replied-to name]: text`, the time only
    where the hour changes (and on the first line)."""
    zone = ZoneInfo(timezone)
    authors = {message.message_id: message.author_name for message in messages}
    lines = []
    hour = None
    for message in messages:
        local = message.timestamp.astimezone(zone)
        stamp = local.strftime("%H:%M ") if (local.date(), local.hour) != hour else ""
        hour = (local.date(), local.hour)
        replied = authors.get(message.reply_to_id) if message.reply_to_id else None
        who = _one_line(message.author_name)
        if replied:
            who += " ↩ " + _one_line(replied)
        lines.append(f"{stamp}{who}: {_one_line(message.content)}")
    return lines


def compact_transcript(messages: list[PromptMessage], timezone: str = "UTC") -> Raw:
    return Raw("\n".join(compact_lines(messages, timezone)))


def target_legend(
    members: list[PromptMember],
    keys: list[str] | None = None,
    caps: dict[int, int] | None = None,
) -> Raw:
    """`name (aliases) ≤N` for the targets the chat alone does not describe: one the chat
    calls by another name (an alias it uses), or whose note must be shorter than the others'
    (`caps`). Everyone else is named in the transcript already; answers use `keys` (the
    names, see `member_keys`), so no handle has to be defined."""
    caps = caps or {}
    lines = []
    for index, member in enumerate(members):
        key = keys[index] if keys else member.name
        aliases = f" ({', '.join(member.aliases)})" if member.aliases else ""
        cap = f" ≤{caps[member.user_id]}" if member.user_id in caps else ""
        if aliases or cap:
            lines.append(f"{_one_line(key)}{_one_line(aliases)}{cap}")
    return Raw("\n".join(lines))


def targets_block(legend: Raw) -> Raw:
    """`<targets>` with the legend, or nothing when no target needs a line."""
    return Raw(f"<targets>\n{legend}\n</targets>\n") if legend else Raw("")


def not_targets(messages: list[PromptMessage], keys: list[str]) -> str:
    """` (not X, Y)`: who writes in the stretch but gets no note (a bot), so the model spends
    no answer on them."""
    named = {key.casefold() for key in keys}
    others = {m.author_name: None for m in messages if m.author_name.casefold() not in named}
    return f" (not {', '.join(others)})" if others else ""


def named_aliases(members: list[PromptMember], messages: list[PromptMessage]) -> list[PromptMember]:
    """The members with only the aliases the chat uses: one the stretch never writes cannot
    point at anyone in it, and costs the legend tokens on every pass."""
    said = "\n".join(message.content for message in messages).casefold()
    return [
        member.model_copy(
            update={"aliases": [alias for alias in member.aliases if alias.casefold() in said]}
        )
        for member in members
    ]
