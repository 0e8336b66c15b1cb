"""The rule-based intent pre-filter: recognise memory commands without calling a model.

Pure functions. `parse_intent` turns "remember that alice is Sergey", "remember this about
bob" (with a replied-to message), "forget that I like pizza", "what do you know about alice"
or "who is bob" into an `Intent`; anything else is kind "none". The intent router runs this
first and only asks a model when `looks_like_command` says a message might be a command the
rules did not understand; the offline provider uses it as its whole router.
"""

from __future__ import annotations

import re

from memory.llm.claims import third_person
from memory.llm.schemas import Intent

_MENTION = r"<@!?\d+>"
_TARGET = rf"(?P<target>{_MENTION}|@?[^\s,.!?;:]+(?: [A-Z][^\s,.!?;:]*)?)"
_PLEASE = r"(?:(?:please|pls|plz|hey|yo|ok|okay|and|also)[,\s]+)*"
_TRAILING = re.compile(r"[\s.!?]+$")

_REMEMBER_THIS = re.compile(
    rf"^{_PLEASE}remember this(?: (?:about|for|of) {_TARGET})?\s*[.!?]*$", re.IGNORECASE
)
_REMEMBER = re.compile(
    rf"^{_PLEASE}(?:remember|note|keep in mind)(?: that|:|,)?\s+(?P<statement>.+)$",
    re.IGNORECASE | re.DOTALL,
)
_FORGET = re.compile(
    rf"^{_PLEASE}forget(?: that|:|,| about)?\s+(?P<statement>.+)$", re.IGNORECASE | re.DOTALL
)
_WHOIS = re.compile(
    rf"^{_PLEASE}(?:what (?:do|did) you (?:know|remember) about|who(?: is|'s| are) |"
    rf"tell me (?:about|what you know about)|what(?: is|'s) known about)\s*{_TARGET}\s*[?.!]*$",
    re.IGNORECASE,
)
_WHO_AM_I = re.compile(
    rf"^{_PLEASE}(?:who am i|what do you (?:know|remember) about me)\s*[?.!]*$", re.IGNORECASE
)
_HINT = re.compile(
    r"\b(?:remember|forget|know about|who is|who's|tell me about|note that)\b", re.IGNORECASE
)
_FIRST_PERSON = re.compile(r"^(?:i|i'm|im|i've|i'll|my|me)\b", re.IGNORECASE)
# Words that end the subject of a statement: "alice [is] ...", "mary jane [likes] ...".
_VERBS = re.compile(
    r"^(?:is|isn't|was|wasn't|are|has|hasn't|had|have|does|doesn't|did|didn't|can|can't|"
    r"will|won't|would|likes|loves|hates|enjoys|lives|lived|works|worked|studies|plays|"
    r"owns|speaks|prefers|wants|needs|knows|goes|went|uses|drives|moved|got|gets|became|"
    r"never|always|used|just|also)$",
    re.IGNORECASE,
)


def strip_address(text: str, bot_name: str) -> str:
    """Drop the way the bot was addressed: "<@123> ", "@Bot ", "Bot, ", "hey bot:"."""
    text = text.strip()
    names = [re.escape(bot_name)] if bot_name else []
    pattern = re.compile(
        rf"^(?:(?:hey|hi|yo|ok|okay)[,\s]+)?(?:{_MENTION}|@?(?:{'|'.join(names) or '(?!)'}))"
        r"[\s,:;!]*",
        re.IGNORECASE,
    )
    while True:
        stripped = pattern.sub("", text, count=1).strip()
        if stripped == text:
            return text
        text = stripped


def looks_like_command(text: str, *, bot_name: str = "") -> bool:
    """Cheap check: might this be a memory command at all? (Plain chat skips the model.)"""
    return bool(_HINT.search(strip_address(text, bot_name)))


def _clean_target(target: str | None) -> str | None:
    if target is None:
        return None
    target = target.strip().strip("\"'“”")
    if re.fullmatch(_MENTION, target):
        return target
    target = target.lstrip("@")
    target = re.sub(r"['’]s$", "", target)
    if target.lower() in {"me", "myself", "i"}:
        return "me"
    return target or None


def _subject(statement: str) -> str:
    """The words before the statement's verb (at most three), else its first word."""
    tokens = statement.split()
    if tokens and re.search(r"['’]s$", tokens[0]):  # "alice's birthday is ..." is about alice
        return re.sub(r"['’]s$", "", tokens[0])
    for index, token in enumerate(tokens[:4]):
        if index and _VERBS.match(token.strip(",")):
            return " ".join(tokens[:index])
    first = tokens[0] if tokens else ""
    return re.sub(r"['’]s$", "", first.strip(",:;"))


def _statement_intent(kind: str, statement: str, author_name: str) -> Intent:
    statement = _TRAILING.sub("", statement.strip())
    if _FIRST_PERSON.match(statement):
        return Intent(kind=kind, target="me", statement=third_person(statement, author_name))
    target = _clean_target(_subject(statement))
    if target is None:
        return Intent(kind="none")
    if re.fullmatch(_MENTION, target):
        return Intent(kind=kind, target=target, statement=end_clause(statement))
    return Intent(kind=kind, target=target, statement=third_person(statement, target))


def end_clause(statement: str) -> str:
    statement = statement.strip()
    return statement if statement.endswith((".", "!", "?")) else statement + "."


def parse_intent(
    text: str, *, bot_name: str = "", author_name: str = "", replied_to: str | None = None
) -> Intent:
    """Classify a message addressed to the bot; kind "none" when no rule matches."""
    body = strip_address(text, bot_name)
    if not body:
        return Intent(kind="none")
    if match := _REMEMBER_THIS.match(body):
        statement = replied_to.strip() if replied_to and replied_to.strip() else None
        return Intent(
            kind="remember_this", target=_clean_target(match.group("target")), statement=statement
        )
    if _WHO_AM_I.match(body):
        return Intent(kind="whois", target="me")
    if match := _WHOIS.match(body):
        target = _clean_target(_TRAILING.sub("", match.group("target")))
        if target and target.lower() not in {"you", "this", "that", "it"}:
            return Intent(kind="whois", target=target)
    if match := _FORGET.match(body):
        return _statement_intent("forget", match.group("statement"), author_name)
    if match := _REMEMBER.match(body):
        statement = match.group("statement")
        if statement.strip().lower().startswith("this"):
            return Intent(kind="none")  # "remember this is cool": ambiguous, leave to a model
        return _statement_intent("remember", statement, author_name)
    return Intent(kind="none")
