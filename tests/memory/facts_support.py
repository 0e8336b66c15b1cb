"""Test support for the facts tests: a scripted model that merges like a careful LLM would.

It sits at the network edge (an `LLMProvider`), so everything above it is the real code.
"""

from __future__ import annotations

import re
from typing import Any

from memory.llm.providers import LLMRequest
from memory.llm.tasks import ForgetOutput, Intent, TextOutput
from tests.fakes import ScriptedProvider


def _sentence(statement: str) -> str:
    text = statement.strip()
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def merge(request: LLMRequest) -> TextOutput:
    """Append the statement as a sentence unless it is already there or forgotten."""
    blob: str = request.inputs["blob"]
    statement: str = request.inputs["statement"]
    forgotten = {_norm(item) for item in request.inputs.get("forgotten", [])}
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", blob.strip()) if s]
    if _norm(statement) not in forgotten and _norm(statement) not in map(_norm, sentences):
        sentences.append(_sentence(statement))
    return TextOutput(text=" ".join(s for s in sentences if _norm(s) not in forgotten))


def forget(request: LLMRequest) -> ForgetOutput:
    """Drop sentences that contain the statement."""
    blob: str = request.inputs["blob"]
    needle = _norm(request.inputs["statement"])
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", blob.strip()) if s]
    kept = [s for s in sentences if needle not in _norm(s)]
    return ForgetOutput(found=len(kept) < len(sentences), blob=" ".join(kept))


def whois(request: LLMRequest) -> TextOutput:
    name = request.inputs["member"]["name"]
    return TextOutput(text=f"About {name}: {request.inputs['memory']}")


def scripted_memory_model(**extra: Any) -> ScriptedProvider:
    """A provider answering remember/forget/whois deterministically; `route` must be scripted
    by the test when it matters (default: not a command)."""
    script: dict[str, Any] = {
        "remember": merge,
        "forget": forget,
        "whois": whois,
        "route": lambda request: Intent(kind="none"),
    }
    script.update(extra)
    return ScriptedProvider(script)
