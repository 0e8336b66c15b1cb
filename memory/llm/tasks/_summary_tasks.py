"""The transient-memory tasks: notes on a stretch of chat, a day's summary from its notes,
histories of days 2-7 (one member, or many in one call) and the 3-way merge."""

from __future__ import annotations

import logging
from datetime import date
from typing import Any

from memory.llm.tasks._calls import TaskCalls, grounded_problem
from memory.llm.tasks._elements import (
    day_line,
    forgotten_constraints,
    history_elements,
    keyed_inputs,
    member_keys,
    reduce_elements,
)
from memory.llm.tasks._floor import (
    floored_notes,
    floored_stretch,
)
from memory.llm.tasks._schemas import (
    LearnedItem,
    PromptMember,
    PromptMessage,
)
from memory.llm.tasks._transcript import (
    compact_transcript,
    named_aliases,
    not_targets,
    target_legend,
    targets_block,
)
from memory.llm.tasks._vetting import flat_sources
from prompts.loader import Raw, escape_body, render

_log = logging.getLogger(__name__)


class SummaryTasks:
    """Summaries and merges (`MemoryLLM.summaries`), over the calls every task shares."""

    def __init__(self, calls: TaskCalls) -> None:
        self._calls = calls

    async def read_stretch(
        self,
        *,
        guild_id: int,
        day: date,
        timezone: str,
        messages: list[PromptMessage],
        members: list[PromptMember],
        max_chars: int,
        forgotten: dict[int, list[str]] | None = None,
        part: str = "1/1",
        caps: dict[int, int] | None = None,
    ) -> tuple[dict[int, str], list[LearnedItem]]:
        """Notes per target member on a stretch of chat, and the durable statements about
        targets it revealed (learned facts), in the same single call. `caps`: a smaller
        length for some targets' notes (what their day's summary has room left for)."""
        caps = caps or {}
        forgotten = forgotten or {}
        all_forgotten = [statement for items in forgotten.values() for statement in items]
        keys = member_keys(members)
        prompt = render(
            "daily_summary",
            max_chars=max_chars,
            skip=not_targets(messages, keys),
            constraints=forgotten_constraints(all_forgotten),
            day=day.isoformat(),
            timezone=timezone,
            part=part,
            targets=targets_block(target_legend(named_aliases(members, messages), keys, caps)),
            messages=compact_transcript(messages, timezone),
        )
        inputs = {
            "day": day.isoformat(),
            "messages": [message.model_dump(mode="json") for message in messages],
            "members": [
                {**item, "max_chars": caps[member.user_id]} if member.user_id in caps else item
                for item, member in zip(keyed_inputs(members), members, strict=True)
            ],
            "max_chars": max_chars,
            "forgotten": {str(key): value for key, value in forgotten.items()},
        }
        answered = await self._calls.per_member(
            "daily_summary", prompt, inputs, guild_id=guild_id, members=members, max_chars=max_chars
        )
        transcript = "\n".join(f"{m.author_name}: {m.content}" for m in messages)
        return await floored_stretch(self._calls, answered, members, max_chars, transcript)

    async def reduce_daily(
        self,
        *,
        guild_id: int,
        members: list[PromptMember],
        parts: dict[int, list[str]],
        max_chars: int,
        forgotten: dict[int, list[str]] | None = None,
    ) -> dict[int, str]:
        """One call combining the partial summaries of a chunked day, for many members."""
        forgotten = forgotten or {}
        prompt = render(
            "daily_reduce",
            max_chars=max_chars,
            constraints=forgotten_constraints(
                [statement for member in members for statement in forgotten.get(member.user_id, [])]
            ),
            members=reduce_elements(members, parts),
        )
        inputs = {
            "members": keyed_inputs(members),
            "parts": {str(member.user_id): parts.get(member.user_id, []) for member in members},
            "max_chars": max_chars,
            "forgotten": {str(key): value for key, value in forgotten.items()},
        }
        answered = await self._calls.per_member(
            "daily_reduce", prompt, inputs, guild_id=guild_id, members=members, max_chars=max_chars
        )
        return await floored_notes(
            self._calls,
            answered,
            members,
            max_chars,
            lambda user_id: "\n".join(parts.get(user_id, [])),
        )

    async def summarize_history(
        self,
        *,
        guild_id: int,
        member: PromptMember,
        days: list[tuple[date, str]],
        max_chars: int,
        forgotten: list[str] | None = None,
        previous: tuple[date, str] | None = None,
        start_day: date | None = None,
    ) -> str:
        """Roll days 2-7 of daily summaries into one narrative, or roll `previous` (its end
        day, its text) forward with the days after it."""
        ordered = sorted(days)
        start = start_day or (ordered[0][0] if ordered else None)
        end = ordered[-1][0] if ordered else (previous[0] if previous else None)
        prompt = render(
            "historical_summary",
            member_name=member.name,
            start_day=start.isoformat() if start else "",
            end_day=end.isoformat() if end else "",
            max_chars=max_chars,
            constraints=forgotten_constraints(forgotten or []),
            previous=Raw(escape_body(previous[1])) if previous else "",
            days=Raw("\n".join(day_line(day, text) for day, text in ordered)),
        )
        inputs = {
            "member": member.model_dump(),
            "days": [{"day": day.isoformat(), "text": text} for day, text in ordered],
            "max_chars": max_chars,
            "forgotten": forgotten or [],
            **_previous_inputs(previous, start),
        }
        problem = grounded_problem(flat_sources(inputs), [member.name, *member.aliases])
        return await self._calls.text(
            "historical_summary", prompt, inputs, problem, guild_id=guild_id, max_chars=max_chars
        )

    async def summarize_histories(
        self,
        *,
        guild_id: int,
        members: list[PromptMember],
        days: dict[int, list[tuple[date, str]]],
        max_chars: int,
        forgotten: dict[int, list[str]] | None = None,
        previous: dict[int, tuple[date, str]] | None = None,
        start_day: date | None = None,
    ) -> dict[int, str]:
        """Days 2-7 of many members in one call (a guild's histories when a day closes); a
        member in `previous` has their earlier narrative rolled forward with the newer days."""
        forgotten = forgotten or {}
        previous = previous or {}
        every_day = [d for items in days.values() for d, _ in items]
        every_day += [end for end, _ in previous.values()]
        start = start_day or (min(every_day) if every_day else None)
        end = max(every_day) if every_day else None
        prompt = render(
            "historical_batch",
            max_chars=max_chars,
            start_day=start.isoformat() if start else "",
            end_day=end.isoformat() if end else "",
            constraints=forgotten_constraints(
                [s for member in members for s in forgotten.get(member.user_id, [])]
            ),
            members=history_elements(members, days, previous),
        )
        inputs = {
            "members": keyed_inputs(members),
            "days": {
                str(user_id): [{"day": d.isoformat(), "text": text} for d, text in sorted(items)]
                for user_id, items in days.items()
            },
            "max_chars": max_chars,
            "forgotten": {str(key): value for key, value in forgotten.items()},
            "previous": {
                str(user_id): {"until": until.isoformat(), "text": text}
                for user_id, (until, text) in previous.items()
            },
            "start_day": start.isoformat() if start else None,
        }
        answered = await self._calls.per_member(
            "historical_summary",
            prompt,
            inputs,
            guild_id=guild_id,
            members=members,
            max_chars=max_chars,
        )

        def sources(user_id: int) -> str:
            told = [text for _, text in days.get(user_id, [])]
            if user_id in previous:
                told.append(previous[user_id][1])
            return "\n".join(told)

        return await floored_notes(self._calls, answered, members, max_chars, sources)

    async def merge_context(
        self,
        *,
        guild_id: int,
        member: PromptMember,
        facts: str,
        today: str,
        history: str,
        max_chars: int,
        forgotten: list[str] | None = None,
    ) -> str:
        """The 3-way merge: facts win, today and history fill in."""
        prompt = render(
            "merge",
            member_name=member.name,
            max_chars=max_chars,
            constraints=forgotten_constraints(forgotten or []),
            facts=facts,
            today=today,
            history=history,
        )
        inputs = {
            "member": member.model_dump(),
            "facts": facts,
            "today": today,
            "history": history,
            "max_chars": max_chars,
            "forgotten": forgotten or [],
        }
        problem = grounded_problem(
            f"{facts}\n{today}\n{history}",
            [member.name, *member.aliases],
            keeps=(facts,),
            dropped="left out the facts",
        )
        return await self._calls.text(
            "merge", prompt, inputs, problem, guild_id=guild_id, max_chars=max_chars
        )


def _previous_inputs(previous: tuple[date, str] | None, start: date | None) -> dict[str, Any]:
    if previous is None:
        return {}
    until, text = previous
    return {
        "previous": {"until": until.isoformat(), "text": text},
        "start_day": start.isoformat() if start else None,
    }
