"""Is a model's answer meaningful, not only well-formed? The checks behind "never worse than
offline".

A small or overloaded model answers valid JSON that says nothing: the schema's descriptions,
the prompt's example, a name nobody in the chat has, a statement the chat never made, "the
answer". Each check here looks at one item of an answer against what the prompt gave the
model (its sources), so the caller can keep what holds and take the offline provider's item
for the rest. Words are compared as stems (`memory.core.text.content_tokens`), so a summary
may paraphrase ("played" for "playing") but not invent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from memory.core.text import words
from memory.language import content_tokens

# Of an item's content words, at least this share must occur in its sources.
GROUNDED_SHARE = 0.5
# A whois answer or a merged context carries at least this share of the facts' words.
CARRIES_SHARE = 0.4
# Words any summary or answer adds around what the chat said: reporting verbs and the like,
# never evidence that a statement was invented.
_FRAMING = content_tokens(
    "talked mentioned said says shared discussed asked asks seemed seems felt feels today "
    "about also chat conversation message messages member members noted noting revealed "
    "spoke speaking wrote writes told tells expressed described explained reported known "
    "remembers remember know knows anything nothing yet day days earlier currently recently"
)
_ROOT = 5
_OUTPUT = re.compile(r"<output>(.*?)</output>", re.DOTALL)
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')


def example_texts(prompt: str, schema: type[BaseModel] | None) -> list[str]:
    """The strings a model could copy instead of answering: the quoted literals of the
    prompt's `<output>` example and the schema's field descriptions."""
    found: list[str] = []
    for block in _OUTPUT.findall(prompt):
        found += [text for text in _QUOTED.findall(block) if len(text) >= 4]
    if schema is not None:
        found += _descriptions(schema.model_json_schema())
    return [" ".join(text.casefold().split()) for text in found]


def _descriptions(node: Any) -> list[str]:
    """Every `description` in a JSON schema, nested models' too."""
    if isinstance(node, dict):
        own = [node["description"]] if isinstance(node.get("description"), str) else []
        return own + [text for value in node.values() for text in _descriptions(value)]
    if isinstance(node, list):
        return [text for value in node for text in _descriptions(value)]
    return []


def echoes(text: str, examples: Iterable[str]) -> bool:
    """The answer (or a `name: text` line's text) repeats an example instead of answering."""
    folded = " ".join(text.casefold().split())
    if not folded:
        return False
    for example in examples:
        if folded == example or (len(example) >= 10 and example in folded):
            return True
        if ":" in folded and folded.split(":", 1)[1].strip() in example:
            return True
    return False


def grounded(text: str, sources: str, *, names: Iterable[str] = ()) -> bool:
    """Most of the answer's content words occur in its sources (names aside), and it says
    something beyond names and framing."""
    said = content_tokens(text, ignore=names) - _FRAMING
    if not said:
        return False
    known = content_tokens(sources)
    roots = {_root(token) for token in known}
    found = [token for token in said if token in known or _root(token) in roots]
    return len(found) / len(said) >= GROUNDED_SHARE


def _root(token: str) -> str:
    """The first five letters: "baker" and "bakery", "cook" and "cooking" share them (stems
    keep derivations apart that a paraphrase may cross)."""
    return token[:_ROOT] if len(token) >= _ROOT else f"={token}"


def carries(text: str, facts: str, *, names: Iterable[str] = ()) -> bool:
    """The answer keeps enough of what the facts say (a whois answer, a merged context)."""
    wanted = content_tokens(facts, ignore=names) - _FRAMING
    if not wanted:
        return True
    kept = content_tokens(text, ignore=names)
    need = min(len(wanted), max(1, round(len(wanted) * CARRIES_SHARE)))
    return len(wanted & kept) >= need


def names_in(text: str, names: Iterable[str]) -> bool:
    """A target the answer names is written in the text (a router's `target`)."""
    folded = set(words(text.casefold()))
    return any(set(words(name.casefold())) <= folded for name in names if name.strip())


def flat_sources(value: Any) -> str:
    """Every string in a task's inputs, one per line: what the model was shown."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(flat_sources(item) for item in value.values())
    if isinstance(value, list | tuple):
        return "\n".join(flat_sources(item) for item in value)
    if value is None or isinstance(value, bool):
        return ""
    return json.dumps(value) if not isinstance(value, int | float) else ""


def unusable_text(
    text: str, sources: str, examples: list[str], *, names: Iterable[str] = ()
) -> str:
    """Why a free-text item of an answer cannot be used ("" when it can): for tasks outside
    MemoryLLM (episode titles and summaries) that check item by item themselves."""
    if not text.strip():
        return "missing"
    if echoes(text, examples):
        return "echo"
    return "" if grounded(text, sources, names=names) else "ungrounded"
