"""Cheap, rule-based recognition of memory commands in messages addressed to the bot.

Every message addressed to the bot passes through here, so this must cost nothing: plain
regular expressions, no I/O. Three outcomes:
- a confident parse of a common phrasing ("remember that alice is Sergey") - no LLM call;
- "ask the router": memory keywords are present but the phrasing is unusual, so the LLM
  router (memory.llm.tasks.MemoryLLM.route) decides;
- "ignore": ordinary chat, left to the replies cog.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

# Re-exported: the command parser's callers rewrite statements with them.
from memory.language._chat import FIRST_PERSON_ANY
from memory.language._third_person import starts_in_first_person as starts_in_first_person
from memory.language._third_person import third_person as third_person

_log = logging.getLogger(__name__)

CommandKind = Literal["remember", "remember_this", "forget", "forget_this", "whois"]

SELF_WORDS = frozenset({"me", "myself", "i", "self", "moi"})
_MENTION = re.compile(r"<@!?(\d+)>")

# Politeness and filler that do not change the command.
_LEAD = re.compile(
    r"^(?:(?:hey|hi|ok|okay|so|and|also|please|pls|plz|now)\b[\s,]*"
    r"|(?:can|could|would|will)\s+you\s+(?:please\s+)?)+",
    re.IGNORECASE,
)
_TRAIL = re.compile(r"(?:[\s,]+(?:please|pls|plz|thanks|thank you|thx))+\s*[.!?]*$|[\s.!]+$", re.I)

_TARGET = r"(?P<target><@!?\d+>|[^\s:,]+(?:\s+[^\s:,]+){0,2}?)"

_REMEMBER_THIS = re.compile(
    rf"^(?:remember|memori[sz]e|note|save)\s+(?:this|that)(?:\s+(?:about|for|of)\s+{_TARGET})?$",
    re.IGNORECASE,
)
_REMEMBER_ABOUT = re.compile(
    rf"^(?:remember|memori[sz]e|note)\s+(?:about|for)\s+{_TARGET}\s*(?:that\b|:|,|-)\s*(?P<statement>.+)$",
    re.IGNORECASE | re.DOTALL,
)
_REMEMBER = re.compile(
    r"^(?:remember|memori[sz]e|note)(?:\s+that\b|\s*:)?\s+(?P<statement>.+)$",
    re.IGNORECASE | re.DOTALL,
)
_FORGET_THIS = re.compile(
    rf"^forget\s+(?:this|that)(?:\s+(?:about|for|of)\s+{_TARGET})?$", re.IGNORECASE
)
_FORGET_ABOUT = re.compile(
    rf"^forget\s+(?:about|for)\s+{_TARGET}\s*(?:that\b|:|,|-)\s*(?P<statement>.+)$",
    re.IGNORECASE | re.DOTALL,
)
_FORGET = re.compile(r"^forget(?:\s+that\b|\s*:)?\s+(?P<statement>.+)$", re.IGNORECASE | re.DOTALL)
_WHOIS = re.compile(
    # "what do you know / tell me about X" need "about" ("tell me a joke" is chat);
    # "who is X" does not.
    r"^(?:(?:what\s+(?:do|did)\s+you\s+(?:know|remember)|what\s+you\s+know"
    r"|what(?:'s|\s+is)\s+known|tell\s+me(?:\s+(?:what\s+you\s+know|everything))?)\s+about"
    r"|who\s+is|who's|whos|whois)"
    r"\s+(?P<target>.+?)\s*\??$",
    re.IGNORECASE | re.DOTALL,
)
_WHO_AM_I = re.compile(r"^(?:who\s+am\s+i|what\s+do\s+you\s+know\s+about\s+me)\s*\??$", re.I)
# "who is allergic to wasps?": a question about someone, whoever it names.
_WHO_QUESTION = re.compile(r"^\W*(?:who\s+is|who's|whos)\b", re.IGNORECASE)

# Words that suggest a memory command the rules above did not parse: ask the LLM router.
_KEYWORDS = re.compile(
    r"\b(?:remember|rememb|memori[sz]e|forget|forgot|know\s+about|knows\s+about|who\s+is|who's"
    r"|whois|tell\s+me\s+about|note\s+that|keep\s+in\s+mind|don't\s+forget)\b"
    r"|запомни|забудь|что\s+ты\s+знаешь|кто\s+так",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class ParsedCommand:
    """A memory command as written: `target` None means "the subject of the statement";
    `statement` None for the *_this kinds means "the replied-to message"."""

    kind: CommandKind
    target: str | None = None
    statement: str | None = None


@dataclass(frozen=True, slots=True)
class Prefilter:
    """Outcome of the cheap pass: a parse, a request to ask the router, or nothing."""

    parsed: ParsedCommand | None = None
    ask_router: bool = False

    @property
    def ignore(self) -> bool:
        return self.parsed is None and not self.ask_router


IGNORE = Prefilter()


def addressed_text(
    text: str, *, bot_name: str, bot_user_id: int | None = None, reply_to_bot: bool = False
) -> str | None:
    """The message with its addressing removed, or None when it is not for the bot.

    Addressed means: it starts with the bot's name (any case, optional comma/colon), it
    mentions the bot anywhere, or it replies to one of the bot's messages.
    """
    stripped = text.strip()
    name = bot_name.strip()
    if name:
        match = _name_prefix(name).match(stripped)
        if match:
            return _without_bot_mention(stripped[match.end() :], bot_user_id).strip()
    if bot_user_id is not None and re.search(rf"<@!?{bot_user_id}>", stripped):
        return _without_bot_mention(stripped, bot_user_id).strip(" \t\n,:;")
    if reply_to_bot:
        return stripped
    return None


@lru_cache(maxsize=16)
def _name_prefix(name: str) -> re.Pattern[str]:
    """The bot's name opening a message ("Bot, ...", "@bot: ..."), compiled once per name."""
    return re.compile(rf"^@?{re.escape(name)}(?![\w-])[\s,:;!.]*", re.IGNORECASE)


_FIRST_PERSON = frozenset(FIRST_PERSON_ANY)
# Capitalised so, a first-person word is a name: "the US" is a country, not "us".
_NOT_PRONOUNS = frozenset({"US"})
# A question that ends in an instruction: "Was it a good month? Answer yes or no."
_ASKS_FIRST = re.compile(r"[^.!?]+\?\s")
_LEADING_MENTION = re.compile(r"^\s*<@!?\d+>[\s,:;]*")
# "what were we talking about", "what did we discuss", "what topics came up", "what happened".
_TALKED = re.compile(
    r"\b(talk(?:s|ing|ed)?|discuss(?:es|ing|ed)?|chat(?:s|ting|ted)?|going on|happen(?:ed|ing)?"
    r"|conversations?|topics?|were we)\b",
    re.IGNORECASE,
)


def asks_what_was_talked_about(text: str) -> bool:
    """Does the question ask what was talked about (episodes answer it)? One rule for routing
    a question to episodes and for the offline model answering from them."""
    return _TALKED.search(text) is not None


@lru_cache(maxsize=4096)  # pure; today's notes ask again for every unread message per build
def is_memory_command(text: str, *, bot_name: str) -> bool:
    """Whether a stored message told the bot to remember, forget or tell about someone.

    Summaries leave these out: the facts already hold what they said, and a forget command
    quoted in a summary would repeat exactly what was forgotten. Addressing is by name or by a
    leading mention (stored messages do not say which mention is the bot's).
    """
    body = addressed_text(text, bot_name=bot_name)
    if body is None:
        body = _LEADING_MENTION.sub("", text, count=1)
        if body == text:
            return False
    return prefilter(body, has_reply=True).parsed is not None


_WORD = re.compile(r"[\w']+")


@lru_cache(maxsize=4096)  # pure; asked beside is_memory_command for every message of a note
def asks_the_bot_only(text: str, *, bot_name: str, bot_ids: frozenset[int] = frozenset()) -> bool:
    """A question to the bot, by its name or by a mention of one of `bot_ids` (the bots the
    member directory knows), that says nothing of who asks ("Bot, where did alice move
    from?"): a request, not chat. Day notes leave it out: it is no news about its author, and
    "bob said about alice: where did alice move from?" in alice's note would read as news about
    her. A question in the first person ("Bot, I start a new job on Monday, any tips?") is
    kept, as is one mentioning someone the directory does not know for a bot. A question is
    one that ends with "?" or opens with one ("...? Answer yes or no."); "US" in capitals is
    the country, not the first person."""
    body = addressed_text(text, bot_name=bot_name)
    for bot_id in sorted(bot_ids) if body is None else ():
        body = addressed_text(text, bot_name="", bot_user_id=bot_id)
        if body is not None:
            break
    if body is None or not (body.rstrip().endswith("?") or _ASKS_FIRST.match(body)):
        return False
    said = {word.lower() for word in _WORD.findall(body) if word not in _NOT_PRONOUNS}
    return not _FIRST_PERSON.intersection(said)


def is_forget_command(text: str, *, bot_name: str) -> bool:
    """A memory command asking to forget something (the conversation window leaves it out: it
    repeats the very words forgotten)."""
    if not is_memory_command(text, bot_name=bot_name):
        return False
    body = addressed_text(text, bot_name=bot_name)
    body = _LEADING_MENTION.sub("", text, count=1) if body is None else body
    parsed = prefilter(body, has_reply=True).parsed
    return parsed is not None and parsed.kind.startswith("forget")


def _without_bot_mention(text: str, bot_user_id: int | None) -> str:
    if bot_user_id is None:
        return text
    return re.sub(rf"\s*<@!?{bot_user_id}>[\s,:;]*", " ", text).strip()


def normalise_command(text: str) -> str:
    """Drop leading politeness and trailing punctuation/thanks, collapse whitespace."""
    text = " ".join(text.split())
    previous = None
    while previous != text:
        previous = text
        text = _LEAD.sub("", text).strip()
        text = _TRAIL.sub("", text).strip()
    return text


def prefilter(text: str, *, has_reply: bool = False) -> Prefilter:
    """Classify a message addressed to the bot (addressing already removed)."""
    command = normalise_command(text)
    if not command:
        return IGNORE
    parsed = _parse(command, has_reply=has_reply)
    if parsed is not None:
        return Prefilter(parsed=parsed)
    return Prefilter(ask_router=True) if _KEYWORDS.search(command) else IGNORE


def _parse(command: str, *, has_reply: bool) -> ParsedCommand | None:
    if _WHO_AM_I.match(command):
        return ParsedCommand("whois", target="me")
    if match := _REMEMBER_THIS.match(command):
        if has_reply or match.group("target"):
            return ParsedCommand("remember_this", target=_clean_target(match.group("target")))
        return None  # "remember that" with nothing to remember: let the router try
    if match := _FORGET_THIS.match(command):
        if has_reply or match.group("target"):
            return ParsedCommand("forget_this", target=_clean_target(match.group("target")))
        return None
    for pattern, kind in ((_REMEMBER_ABOUT, "remember"), (_FORGET_ABOUT, "forget")):
        if match := pattern.match(command):
            return ParsedCommand(
                kind,  # type: ignore[arg-type]
                target=_clean_target(match.group("target")),
                statement=match.group("statement").strip(),
            )
    for pattern, kind in ((_REMEMBER, "remember"), (_FORGET, "forget")):
        if match := pattern.match(command):
            statement = match.group("statement").strip()
            if len(statement) < 2:
                return None
            return ParsedCommand(kind, statement=statement)  # type: ignore[arg-type]
    if match := _WHOIS.match(command):
        target = _clean_target(match.group("target"))
        if target and len(target.split()) <= 4:
            return ParsedCommand("whois", target=target)
    return None


def _clean_target(target: str | None) -> str | None:
    if target is None:
        return None
    cleaned = target.strip().strip("\"'`“”‘’?!.,")
    cleaned = re.sub(r"(?:'s|’s)$", "", cleaned)
    return cleaned or None


def asks_who_is(text: str) -> bool:
    return _WHO_QUESTION.match(text) is not None


def is_self_reference(target: str) -> bool:
    return target.strip().lower() in SELF_WORDS


def mention_id(text: str) -> int | None:
    """The user id of a `<@id>` mention that is the whole of `text`."""
    match = _MENTION.fullmatch(text.strip())
    return int(match.group(1)) if match else None


def mention_ids(text: str) -> list[int]:
    return [int(value) for value in _MENTION.findall(text)]


def subject_candidates(statement: str, *, max_words: int = 3) -> list[str]:
    """Possible names the statement is about, longest first: "Big Bob's cat is..." gives
    "Big Bob's cat", "Big Bob", "Big". A leading mention is the only candidate."""
    words = statement.strip().split()
    if not words:
        return []
    if mention_id(words[0].rstrip("'’s,:")) is not None:
        match = _MENTION.match(words[0])
        return [match.group(0)] if match else []
    candidates: list[str] = []
    for count in range(min(max_words, len(words)), 0, -1):
        candidate = _clean_target(" ".join(words[:count]))
        if candidate and candidate not in candidates:
            candidates.append(candidate)
    return candidates
