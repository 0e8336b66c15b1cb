"""Merging a statement into a member's facts, checked before anything is stored.

The model merges (newer wins); the merge is then checked (memory.facts._checks): a merge that
loses facts it was not asked to drop, or leaves out the new one, is replaced by the
deterministic merge of the offline provider, or refused when there is none. Facts let go of
only to stay within FACTS_MAX_CHARS are reported, so the member can be told.
"""

from __future__ import annotations

import logging
from dataclasses import KW_ONLY, dataclass

from memory.core.models import Member
from memory.core.telemetry import Telemetry
from memory.facts._checks import dropped_claims, holds_statement
from memory.facts._model import FactsConfig, FactsFull, FactsUnavailable, prompt_member
from memory.facts._text import strip_forgotten
from memory.llm import LLMError, MemoryLLM

_log = logging.getLogger(__name__)

# Second try when a merge comes back over the cap: ask for this share of it.
_TIGHTER = 0.8
# Past this share of FACTS_MAX_CHARS (old facts plus the new one) a merge may have had to let
# facts go for room: those it no longer says in full are reported.
_FULL = 0.9


@dataclass(frozen=True, slots=True, eq=False)
class FactMerger:
    """The remember merge: model first, checked, deterministic fallback."""

    llm: MemoryLLM
    fallback: MemoryLLM | None
    settings: FactsConfig
    _: KW_ONLY
    telemetry: Telemetry

    async def merge(
        self, guild_id: int, member: Member, blob: str, statement: str, forgotten: list[str]
    ) -> tuple[str, tuple[str, ...]]:
        """The blob with `statement` merged in, and the old sentences let go of to stay within
        FACTS_MAX_CHARS (the member is told). A model's merge that loses facts it was not asked
        to drop, or does not say the new one, is replaced by the deterministic merge."""
        names = list(member.names)
        merged = await self._merge_with(self.llm, guild_id, member, blob, statement, forgotten)
        lost = dropped_claims(blob, merged, statement, names)
        # A fact dropped although it would still have fitted was lost, not let go of for room.
        room = self.settings.facts_max_chars - len(merged)
        wrongly = [sentence for sentence in lost if len(sentence) + 1 <= room]
        if wrongly or not holds_statement(merged, statement, names):
            self.telemetry.emit(
                "facts_merge_rejected",
                outcome="fallback" if self.fallback else "error",
                guild_id=guild_id,
                user_id=member.user_id,
                lost=len(wrongly),
            )
            _log.warning(
                "merge for %s/%s lost %d fact(s) or the new one; using the deterministic merge",
                guild_id,
                member.user_id,
                len(wrongly),
            )
            if self.fallback is None:
                raise FactsUnavailable("the language model's merge would have lost facts")
            merged = await self._merge_with(
                self.fallback, guild_id, member, blob, statement, forgotten
            )
            lost = dropped_claims(blob, merged, statement, names)
            if not holds_statement(merged, statement, names):
                raise FactsUnavailable("the new fact could not be merged")
        if len(blob) + len(statement) >= self.settings.facts_max_chars * _FULL:
            # Room was short: whatever the merge no longer says in full was let go of to make
            # it, and the member is told (near-alike facts pass the lenient check above).
            lost = dropped_claims(blob, merged, statement, names, strict=True)
        return merged, tuple(lost)

    async def _merge_with(
        self,
        llm: MemoryLLM,
        guild_id: int,
        member: Member,
        blob: str,
        statement: str,
        forgotten: list[str],
    ) -> str:
        cap = self.settings.facts_max_chars
        who = prompt_member(member)
        for limit in (cap, int(cap * _TIGHTER)):
            try:
                merged = await llm.remember(
                    guild_id=guild_id,
                    member=who,
                    blob=blob,
                    statement=statement,
                    max_chars=limit,
                    forgotten=forgotten,
                )
            except LLMError as exc:
                raise FactsUnavailable(f"the language model failed: {exc}") from exc
            merged = strip_forgotten(merged.strip(), forgotten, member.names)
            if not merged:
                # An empty merge of a non-empty statement is a broken answer, never a wipe.
                raise FactsUnavailable("the language model returned an empty memory")
            if len(merged) <= cap:
                return merged
            _log.info(
                "merge for %s/%s over cap (%d > %d)", guild_id, member.user_id, len(merged), cap
            )
        raise FactsFull(cap)
