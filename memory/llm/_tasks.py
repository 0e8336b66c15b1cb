"""Memory operations as LLM tasks: render the prompt file, call the provider, validate output.

This is the only place memory code reaches an LLM. Each method builds an `LLMRequest` whose
`inputs` mirror the prompt's content, so the offline provider can answer deterministically
from the same request a real model gets.
"""

from __future__ import annotations

import logging
from datetime import date
from typing import TypeVar

from pydantic import BaseModel

from memory.llm._base import LLMBadOutput, LLMProvider, LLMRequest, Purpose
from memory.llm._schemas import (
    DailySummaries,
    ForgetOutput,
    Intent,
    PromptMember,
    PromptMessage,
    TextOutput,
)
from prompts.loader import Raw, element, join, render

_log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)


def forgotten_constraints(forgotten: list[str]) -> Raw:
    """Statements a member asked to forget, as a prompt constraint block."""
    if not forgotten:
        return Raw("")
    items = join([element("never_mention", statement) for statement in forgotten])
    return Raw("These statements were deliberately forgotten; never include them:\n" + items)


def message_elements(messages: list[PromptMessage]) -> Raw:
    return join(
        [
            element(
                "message",
                message.content,
                id=message.message_id,
                reply_to=message.reply_to_id,
                timestamp=message.timestamp.isoformat(timespec="seconds"),
                author_id=message.author_id,
                author=message.author_name,
            )
            for message in messages
        ]
    )


def member_elements(members: list[PromptMember]) -> Raw:
    return join(
        [
            element(
                "member",
                member.name,
                id=member.user_id,
                aliases=", ".join(member.aliases) or None,
            )
            for member in members
        ]
    )


def reduce_elements(members: list[PromptMember], parts: dict[int, list[str]]) -> Raw:
    """Each member with their partial summaries, in day order."""
    return join(
        [
            element(
                "member",
                join(
                    [
                        element("part", text, n=index + 1)
                        for index, text in enumerate(parts.get(member.user_id, []))
                    ]
                ),
                id=member.user_id,
                name=member.name,
            )
            for member in members
        ]
    )


def _by_member(
    result: DailySummaries, members: list[PromptMember], max_chars: int
) -> dict[int, str]:
    """user id -> summary for exactly the members asked about ('' when the model skipped one;
    ids it made up are ignored)."""
    wanted = {member.user_id for member in members}
    summaries: dict[int, str] = {user_id: "" for user_id in wanted}
    for item in result.summaries:
        try:
            user_id = int(str(item.user_id).strip().strip("<@!>"))
        except ValueError:
            _log.warning("daily summary for unknown id %r ignored", item.user_id)
            continue
        if user_id in wanted:
            summaries[user_id] = item.summary.strip()[: max_chars * 2]
    return summaries


class MemoryLLM:
    """Typed memory tasks over any `LLMProvider` (usually the fallback chain)."""

    def __init__(self, provider: LLMProvider) -> None:
        self.provider = provider

    async def _structured(
        self,
        purpose: Purpose,
        prompt: str,
        schema: type[T],
        inputs: dict[str, object],
        *,
        guild_id: int | None = None,
        temperature: float = 0.0,
    ) -> T:
        request = LLMRequest(
            purpose=purpose,
            prompt=prompt,
            schema=schema,
            temperature=temperature,
            inputs=inputs,
            guild_id=guild_id,
        )
        response = await self.provider.complete(request)
        parsed = response.parsed
        if not isinstance(parsed, schema):
            raise LLMBadOutput(f"{purpose}: provider returned no {schema.__name__}")
        return parsed

    async def summarize_day(
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
    ) -> dict[int, str]:
        """One call for every target member of one (chunk of a) day: user id -> summary."""
        forgotten = forgotten or {}
        all_forgotten = [statement for items in forgotten.values() for statement in items]
        prompt = render(
            "daily_summary",
            max_chars=max_chars,
            constraints=forgotten_constraints(all_forgotten),
            day=day.isoformat(),
            timezone=timezone,
            part=part,
            targets=member_elements(members),
            messages=message_elements(messages),
        )
        inputs = {
            "day": day.isoformat(),
            "messages": [message.model_dump(mode="json") for message in messages],
            "members": [member.model_dump(mode="json") for member in members],
            "max_chars": max_chars,
            "forgotten": {str(key): value for key, value in forgotten.items()},
        }
        result = await self._structured(
            "daily_summary", prompt, DailySummaries, inputs, guild_id=guild_id
        )
        return _by_member(result, members, max_chars)

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
            "members": [member.model_dump() for member in members],
            "parts": {str(member.user_id): parts.get(member.user_id, []) for member in members},
            "max_chars": max_chars,
            "forgotten": {str(key): value for key, value in forgotten.items()},
        }
        result = await self._structured(
            "daily_reduce", prompt, DailySummaries, inputs, guild_id=guild_id
        )
        return _by_member(result, members, max_chars)

    async def summarize_history(
        self,
        *,
        guild_id: int,
        member: PromptMember,
        days: list[tuple[date, str]],
        max_chars: int,
        forgotten: list[str] | None = None,
    ) -> str:
        """Roll days 2-7 of daily summaries into one narrative."""
        ordered = sorted(days)
        prompt = render(
            "historical_summary",
            member_name=member.name,
            member_id=member.user_id,
            start_day=ordered[0][0].isoformat() if ordered else "",
            end_day=ordered[-1][0].isoformat() if ordered else "",
            max_chars=max_chars,
            constraints=forgotten_constraints(forgotten or []),
            days=join([element("day", text, date=day.isoformat()) for day, text in ordered]),
        )
        inputs = {
            "member": member.model_dump(),
            "days": [{"day": day.isoformat(), "text": text} for day, text in ordered],
            "max_chars": max_chars,
            "forgotten": forgotten or [],
        }
        result = await self._structured(
            "historical_summary", prompt, TextOutput, inputs, guild_id=guild_id
        )
        return result.text.strip()

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
            member_id=member.user_id,
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
        result = await self._structured("merge", prompt, TextOutput, inputs, guild_id=guild_id)
        return result.text.strip()

    async def remember(
        self,
        *,
        guild_id: int,
        member: PromptMember,
        blob: str,
        statement: str,
        max_chars: int,
        forgotten: list[str] | None = None,
    ) -> str:
        """Merge a new fact into the member's blob (newer wins)."""
        prompt = render(
            "remember",
            member_name=member.name,
            member_id=member.user_id,
            max_chars=max_chars,
            constraints=forgotten_constraints(forgotten or []),
            blob=blob,
            statement=statement,
        )
        inputs = {
            "member": member.model_dump(),
            "blob": blob,
            "statement": statement,
            "max_chars": max_chars,
            "forgotten": forgotten or [],
        }
        result = await self._structured("remember", prompt, TextOutput, inputs, guild_id=guild_id)
        return result.text.strip()

    async def forget(
        self, *, guild_id: int, member: PromptMember, blob: str, statement: str
    ) -> ForgetOutput:
        """Remove claims matching `statement`; report whether anything matched."""
        prompt = render(
            "forget",
            member_name=member.name,
            member_id=member.user_id,
            blob=blob,
            statement=statement,
        )
        inputs = {"member": member.model_dump(), "blob": blob, "statement": statement}
        result = await self._structured("forget", prompt, ForgetOutput, inputs, guild_id=guild_id)
        return ForgetOutput(found=result.found, blob=result.blob.strip())

    async def route(
        self,
        *,
        text: str,
        bot_name: str,
        author_name: str,
        replied_to: str | None = None,
        guild_id: int | None = None,
    ) -> Intent:
        """Classify a message addressed to the bot into a memory command (or none)."""
        prompt = render(
            "route",
            bot_name=bot_name,
            author_name=author_name,
            text=text,
            replied_to=replied_to or "",
        )
        inputs = {
            "text": text,
            "bot_name": bot_name,
            "author_name": author_name,
            "replied_to": replied_to,
        }
        return await self._structured("route", prompt, Intent, inputs, guild_id=guild_id)

    async def whois(
        self,
        *,
        guild_id: int,
        member: PromptMember,
        memory: str,
        question: str,
        asker_name: str,
        bot_name: str,
    ) -> str:
        """Phrase an answer to "what do you know about X" from X's memory context."""
        prompt = render(
            "whois",
            asker_name=asker_name,
            bot_name=bot_name,
            member_name=member.name,
            member_id=member.user_id,
            memory=memory,
            question=question,
        )
        inputs = {"member": member.model_dump(), "memory": memory, "question": question}
        result = await self._structured("whois", prompt, TextOutput, inputs, guild_id=guild_id)
        return result.text.strip()

    async def fold_window(
        self, *, summary: str, turns: list[PromptMessage], max_chars: int, guild_id: int | None
    ) -> str:
        """Fold older conversation turns into the channel's running summary."""
        prompt = render(
            "window_fold",
            max_chars=max_chars,
            summary=summary,
            turns=message_elements(turns),
        )
        inputs = {
            "summary": summary,
            "turns": [turn.model_dump(mode="json") for turn in turns],
            "max_chars": max_chars,
        }
        result = await self._structured(
            "window_fold", prompt, TextOutput, inputs, guild_id=guild_id
        )
        return result.text.strip()

    async def reply(
        self,
        *,
        prompt: str,
        inputs: dict[str, object],
        guild_id: int | None,
        temperature: float = 0.7,
    ) -> str:
        """Free-text reply; the reply composer renders `prompts/reply.xml` itself."""
        request = LLMRequest(
            purpose="reply",
            prompt=prompt,
            temperature=temperature,
            inputs=inputs,
            guild_id=guild_id,
        )
        response = await self.provider.complete(request)
        text = response.text.strip()
        if not text:
            raise LLMBadOutput("reply: empty answer")
        return text
