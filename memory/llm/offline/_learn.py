"""Offline learned facts: durable statements members make about themselves, never invented.

Each of a member's own sentences (not a joke, a quote, a hypothetical or a question:
`memory.language.own_statements`) is read by its grammar (`memory.language.durable_statements`):
"I moved to Madrid" becomes "alice lives in Madrid." under the subject "home", so a later
move supersedes it. The last statement on a subject within the stretch wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memory.language import durable_statements, own_statements


def learn(
    messages: Sequence[Mapping[str, Any]], targets: Mapping[int, str]
) -> list[dict[str, str]]:
    """Statements members made about themselves, as `LearnedItem` dicts (user_id as text)."""
    found: dict[tuple[int, str], dict[str, str]] = {}
    for message in messages:
        author = int(str(message.get("author_id")))
        name = targets.get(author)
        if name is None:
            continue
        for sentence in own_statements(str(message.get("content") or "")):
            for item in durable_statements(sentence, name):
                found[(author, item.subject)] = {
                    "user_id": str(author),
                    "subject": item.subject,
                    "statement": item.statement[0].upper() + item.statement[1:],
                }
    return list(found.values())
