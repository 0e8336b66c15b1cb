"""What an endpoint's models accept, learned from their refusals and kept.

Servers differ in structured output: OpenAI and vLLM take `response_format: json_schema`,
llama-cpp-python's server takes only `json_object` (with a `schema` key), some take
`json_object` without a schema, and some nothing at all. Tools likewise. A provider starts at
the strictest mode and steps down on the first refusal; the step is remembered here, in the
process and (through a `CapabilityStore`) in the database, so neither later calls nor a
restart pay the refusal again. Each step is said once in the log; `memorybot health` lists
the stored ones.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, replace
from typing import Protocol

import asyncpg

from db.llm_capabilities import CapabilityRow, load_capabilities, save_capability

_log = logging.getLogger("memory.llm")

# Strictest first: each refusal moves one step right.
STRUCTURED_MODES: tuple[str, ...] = ("json_schema", "json_object_schema", "json_object", "plain")


@dataclass(frozen=True, slots=True)
class Capabilities:
    """How to ask one model for structured output, and whether to offer it tools."""

    structured: str = STRUCTURED_MODES[0]
    tools: bool = True


def next_structured_mode(mode: str) -> str | None:
    """The next looser mode, or None after plain instructions."""
    index = STRUCTURED_MODES.index(mode) if mode in STRUCTURED_MODES else 0
    return STRUCTURED_MODES[index + 1] if index + 1 < len(STRUCTURED_MODES) else None


class CapabilityStore(Protocol):
    """Where negotiated capabilities outlive the process."""

    async def load(self, endpoint: str) -> dict[str, Capabilities]: ...

    async def save(self, endpoint: str, model: str, found: Capabilities, reason: str) -> None: ...


class DatabaseCapabilities:
    """`llm_capabilities` (V020) as a CapabilityStore; a database that fails costs only the
    memory across restarts, never a call."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def load(self, endpoint: str) -> dict[str, Capabilities]:
        try:
            rows = await load_capabilities(self._pool, endpoint)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            _log.warning("stored LLM capabilities unreadable (%s); negotiating afresh", exc)
            return {}
        return {
            row.model: Capabilities(
                structured=row.structured if row.structured in STRUCTURED_MODES else "plain",
                tools=row.tools,
            )
            for row in rows
        }

    async def save(self, endpoint: str, model: str, found: Capabilities, reason: str) -> None:
        row = CapabilityRow(endpoint, model, found.structured, found.tools, reason)
        try:
            await save_capability(self._pool, row)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            _log.warning("LLM capability not stored (%s); kept in this process", exc)


class EndpointCapabilities:
    """One endpoint's models: what each accepts, read from the store once, stepped down on
    refusals."""

    def __init__(self, endpoint: str, store: CapabilityStore | None = None) -> None:
        self.endpoint = endpoint
        self.store = store
        self._known: dict[str, Capabilities] = {}
        self._loaded = store is None
        self._lock = asyncio.Lock()

    async def of(self, model: str) -> Capabilities:
        if not self._loaded:
            async with self._lock:
                if not self._loaded and self.store is not None:
                    stored = await self.store.load(self.endpoint)
                    self._known = {**stored, **self._known}
                    self._loaded = True
        return self._known.get(model, Capabilities())

    async def downgrade(
        self, model: str, *, reason: str, structured: str | None = None, tools: bool | None = None
    ) -> Capabilities:
        """Record a refusal's lesson (said once in the log, stored for the next start)."""
        before = await self.of(model)
        after = replace(
            before,
            structured=structured if structured is not None else before.structured,
            tools=before.tools if tools is None else (before.tools and tools),
        )
        if after == before:
            return before
        self._known[model] = after
        what = (
            f"structured output as {after.structured} instead of {before.structured}"
            if after.structured != before.structured
            else "replies without tools"
        )
        _log.warning(
            "llm %s model %s refused a request format (%s): %s from now on",
            self.endpoint,
            model,
            " ".join(reason.split())[:200],
            what,
        )
        if self.store is not None:
            await self.store.save(self.endpoint, model, after, reason)
        return after
