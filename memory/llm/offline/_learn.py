"""Offline learned facts: durable first-person statements, found by rules, never invented.

"I'm allergic to peanuts", "I moved to Madrid", "I grew up in Porto", "I work as a nurse",
"my daughter Mia", "my cat is called Tom", "I love climbing": each becomes one third-person
statement about the member who said it, with a subject key, so a later statement on the same
subject (moved from Porto to Madrid) supersedes the earlier one. Anything else is left alone:
only what a member says about themself, in words these rules recognise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

# A place is capitalised (the rules are case-insensitive, the place is not: "(?-i:...)").
_PLACE = r"(?-i:(?P<place>[A-ZÀ-ÖØ-Þ][\w'’-]+(?:[ -][A-ZÀ-ÖØ-Þ][\w'’-]+){0,2}))"
_THING = r"(?P<thing>[\w'’ -]{2,40}?)"
_END = r"(?=$|[.!?,;]|\s+(?:and|but|so|because|since|now|today|yesterday)\b)"

# (pattern, subject key template, statement template); {name} is the member.
_RULES: list[tuple[re.Pattern[str], str, str]] = [
    (
        re.compile(
            rf"\bI(?:'m| am) (?:(?:very|really|severely|super) )?allergic to {_THING}{_END}", re.I
        ),
        "health:allergy:{thing}",
        "{name} is allergic to {thing}.",
    ),
    (
        re.compile(rf"\bI (?:just |recently |finally )?(?:moved|relocated) to {_PLACE}", re.I),
        "home",
        "{name} lives in {place}.",
    ),
    (
        re.compile(rf"\bI (?:live|am living|'m living) in {_PLACE}", re.I),
        "home",
        "{name} lives in {place}.",
    ),
    (
        re.compile(rf"\bI (?:grew up|was born) in {_PLACE}", re.I),
        "origin",
        "{name} grew up in {place}.",
    ),
    (
        re.compile(rf"\bI(?:'m| am) (?:originally )?from {_PLACE}", re.I),
        "origin",
        "{name} is from {place}.",
    ),
    (re.compile(rf"\bI work as an? {_THING}{_END}", re.I), "job", "{name} works as a {thing}."),
    (
        re.compile(
            r"\bI(?:'m| am) an? (?P<thing>nurse|teacher|doctor|developer|programmer|engineer"
            r"|student|lawyer|chef|designer|pilot|firefighter|nurse practitioner|"
            r"accountant|electrician|plumber|carpenter|musician|writer|farmer)\b",
            re.I,
        ),
        "job",
        "{name} is a {thing}.",
    ),
    (
        re.compile(
            r"\bmy (?P<rel>daughter|son|wife|husband|partner|girlfriend|boyfriend|sister"
            r"|brother|mom|mother|dad|father)(?:'s name is| is called| is named|,)? "
            r"(?P<who>[A-ZÀ-ÖØ-Þ][\w'’-]+)"
        ),
        "family:{rel}",
        "{name}'s {rel} is called {who}.",
    ),
    (
        re.compile(
            r"\bmy (?P<rel>cat|dog|parrot|rabbit|hamster|horse)(?:'s name is| is called"
            r"| is named|,)? (?P<who>[A-ZÀ-ÖØ-Þ][\w'’-]+)"
        ),
        "pet:{rel}",
        "{name} has a {rel} called {who}.",
    ),
    (
        re.compile(rf"\bI (?:really )?(?:love|adore|am into|'m into) {_THING}{_END}", re.I),
        "likes:{thing}",
        "{name} loves {thing}.",
    ),
    (
        re.compile(rf"\bI (?:really )?(?:hate|can't stand|cannot stand) {_THING}{_END}", re.I),
        "likes:{thing}",
        "{name} hates {thing}.",
    ),
]
_VAGUE = {"it", "that", "this", "them", "you", "him", "her", "everything", "nothing", "the"}


def learn(messages: Sequence[Mapping[str, Any]], targets: Mapping[int, str]) -> list[dict]:
    """Statements members made about themselves, as `LearnedItem` dicts (user_id as text)."""
    found: dict[tuple[int, str], dict] = {}
    for message in messages:
        author = int(str(message.get("author_id")))
        name = targets.get(author)
        if name is None:
            continue
        text = str(message.get("content") or "")
        for pattern, subject, template in _RULES:
            for match in pattern.finditer(text):
                values = {k: v.strip().rstrip(".,!?") for k, v in match.groupdict().items() if v}
                if any(v.lower() in _VAGUE for v in values.values()):
                    continue
                key = subject.format(**{k: v.lower() for k, v in values.items()})
                statement = template.format(name=name, **values)
                found[(author, key)] = {
                    "user_id": str(author),
                    "subject": key,
                    "statement": statement[0].upper() + statement[1:],
                }
    return list(found.values())
