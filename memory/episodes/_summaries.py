"""Titles, summaries and open loops of closed episodes, a guild's batch at a time.

A closed (or stale) episode is due; a job per guild reads the due episodes, packs as many as
fit one prompt (BATCH_CHARS of transcript, at most BATCH_EPISODES) into one `episode` request,
and stores each answer only if the episode did not change meanwhile. The request goes to the
model (`model=True`: guilds whose digest needs it, EPISODE_LLM_SUMMARIES=always) or straight to
the offline provider's extractive summariser, which costs no call: the same request either way.
An extractive summary is upgraded by the model when a consumer needs one (`provider`
'offline' marks it). User text is escaped (prompts.loader).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from typing import Any

import asyncpg
from cachetools import LRUCache
from pydantic import BaseModel, Field

from db import episodes as store
from memory.core.telemetry import Telemetry
from memory.core.text import truncate
from memory.language import addressed_text
from memory.llm import (
    LLMBadOutput,
    LLMRequest,
    MemoryLLM,
    OfflineProvider,
    example_texts,
    output_budget,
    unusable_text,
)
from memory.members import MemberDirectory
from prompts.loader import Raw, element, escape_body, render

_log = logging.getLogger(__name__)

SUMMARY_CHARS = 400
# What is kept of an episode's title and of each of its (at most OPEN_LOOPS) open loops.
TITLE_CHARS = 80
LOOP_CHARS = 160
OPEN_LOOPS = 3
# The longest answer kept for one episode: a model writing more is cut off by max_tokens.
ANSWER_CHARS = TITLE_CHARS + SUMMARY_CHARS + OPEN_LOOPS * LOOP_CHARS
BATCH_CHARS = 24_000
BATCH_EPISODES = 12
LINE_CHARS = 300
# Extractive summaries made for replies, kept by the lines they summarise.
EXTRACTED_KEPT = 512


class EpisodeAnswer(BaseModel):
    id: int
    title: str = ""
    summary: str = ""
    open_loops: list[str] = Field(default_factory=list)


def _extract_key(item: dict[str, Any]) -> bytes:
    """An item's extract is kept under what its lines say."""
    said = repr((item["id"], [(line["author"], line["text"]) for line in item["lines"]]))
    return hashlib.blake2b(said.encode(), digest_size=16).digest()


class EpisodesAnswer(BaseModel):
    episodes: list[EpisodeAnswer] = Field(default_factory=list)


class EpisodeSummarizer:
    """Summarises a guild's due episodes in as few calls as fit."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        llm: MemoryLLM,
        *,
        telemetry: Telemetry,
        members: MemberDirectory | None = None,
        bot_name: str = "",
    ) -> None:
        self._pool = pool
        self._llm = llm
        self._telemetry = telemetry
        self._members = members or MemberDirectory(pool)
        self._bot_name = bot_name
        self._offline = OfflineProvider()
        self._extracted: LRUCache[bytes, EpisodeAnswer] = LRUCache(maxsize=EXTRACTED_KEPT)

    async def summarize_guild(
        self, guild_id: int, *, model: bool, limit: int = 200, upgrade: Sequence[int] = ()
    ) -> int:
        """Summarise up to `limit` due episodes of the guild (with the model: also those of
        `upgrade` only summarised extractively); how many were stored."""
        due = await store.due_summary(self._pool, guild_id, limit, upgrade=upgrade if model else ())
        stored = 0
        batch: list[dict[str, Any]] = []
        size = 0
        for item in await self._items(guild_id, due):  # every due episode's lines in one read
            chars = sum(len(line["text"]) + 20 for line in item["lines"])
            if batch and (size + chars > BATCH_CHARS or len(batch) >= BATCH_EPISODES):
                stored += await self._run(guild_id, batch, close=True, model=model)
                batch, size = [], 0
            batch.append(item)
            size += chars
        if batch:
            stored += await self._run(guild_id, batch, close=True, model=model)
        return stored

    async def summarize_open(self, guild_id: int, episode: asyncpg.Record, *, model: bool) -> None:
        """A summary so far of an open episode (a busy channel's catch-up, a reply's working
        memory); stored."""
        item = await self._item(guild_id, episode)
        await self._run(guild_id, [item], close=False, model=model)

    async def _item(self, guild_id: int, episode: asyncpg.Record) -> dict[str, Any]:
        return (await self._items(guild_id, [episode]))[0]

    async def _items(
        self, guild_id: int, episodes: Sequence[asyncpg.Record]
    ) -> list[dict[str, Any]]:
        """Each episode as a request item: its lines read in one statement, its speakers'
        names in one lookup."""
        read = await store.episodes_messages(self._pool, guild_id, episodes)
        talk = [self.members_talk(rows) for rows in read]
        authors = sorted({row["author_id"] for rows in talk for row in rows})
        names = await self._members.display_names(guild_id, authors)
        return [
            {
                "id": int(episode["id"]),
                "count": int(episode["message_count"]),
                "lines": [
                    {
                        "author": names[row["author_id"]],
                        "text": truncate(" ".join(row["content"].split()), LINE_CHARS),
                    }
                    for row in rows
                ],
            }
            for episode, rows in zip(episodes, talk, strict=True)
        ]

    def members_talk(self, rows: list[Any], *, keep_alone: bool = True) -> list[Any]:
        """What members said to each other: lines addressed to the bot (questions, memory
        commands; its answers are not stored) say nothing of what a channel talked about, and a
        forget command would repeat what was forgotten. An episode of nothing else keeps them
        (`keep_alone`), for a summary; a catch-up wants only the talk."""
        if not self._bot_name:
            return rows
        talk = [
            row for row in rows if addressed_text(row["content"], bot_name=self._bot_name) is None
        ]
        return talk or (rows if keep_alone else [])

    async def extract(
        self, guild_id: int, episodes: Sequence[asyncpg.Record]
    ) -> list[EpisodeAnswer]:
        """An extractive title and summary of each episode as it is now, not stored (a reply
        asking about episodes not summarised yet: their summaries stay due for their job), in
        their order; their lines read at once, and those not kept extracted in one request.

        Kept by what an episode's lines say (every asker of a day gets the same episodes, and
        a burst asked for the same five a hundred times); an edit, a delete or a rename
        changes the lines, so nothing gone is ever served from here."""
        items = await self._items(guild_id, episodes)
        keys = [_extract_key(item) for item in items]
        found = {key: self._extracted[key] for key in keys if key in self._extracted}
        missing = [(key, item) for key, item in zip(keys, items, strict=True) if key not in found]
        if missing:
            _, parsed = await self._ask(guild_id, [item for _, item in missing], model=False)
            answered = {answer.id: answer for answer in parsed.episodes}
            for key, item in missing:
                answer = answered.get(item["id"], EpisodeAnswer(id=item["id"]))
                found[key] = self._extracted[key] = answer
        return [found[key] for key in keys]

    async def _ask(
        self, guild_id: int, batch: Sequence[dict[str, Any]], *, model: bool
    ) -> tuple[str, EpisodesAnswer]:
        """One `episode` request for the batch (to the model, or the offline extractor):
        the provider that answered and its answer."""
        # Compact: one `name: text` line per message (escaped), no markup per line.
        episodes = Raw(
            "\n".join(
                element(
                    "episode",
                    Raw(
                        "\n"
                        + "\n".join(
                            escape_body(f"{line['author']}: {line['text']}")
                            for line in item["lines"]
                        )
                        + "\n"
                    ),
                    id=item["id"],
                )
                for item in batch
            )
        )
        prompt = render("episode", max_chars=SUMMARY_CHARS, episodes=episodes)
        inputs = {
            "max_chars": SUMMARY_CHARS,
            "episodes": [{"id": item["id"], "lines": item["lines"]} for item in batch],
        }
        request = LLMRequest(
            purpose="episode",
            prompt=prompt,
            schema=EpisodesAnswer,
            inputs=inputs,
            guild_id=guild_id,
            max_output_tokens=output_budget("episode", ANSWER_CHARS, len(batch)),
        )
        provider = self._llm.provider if model else self._offline
        response = await provider.complete(request)
        parsed = response.parsed
        if not isinstance(parsed, EpisodesAnswer):
            raise LLMBadOutput("episode: provider returned no EpisodesAnswer")
        if response.provider != "offline":
            parsed = await self._floored(request, batch, parsed, response.provider)
        return response.provider, parsed

    async def _floored(
        self,
        request: LLMRequest,
        batch: Sequence[dict[str, Any]],
        parsed: EpisodesAnswer,
        provider: str,
    ) -> EpisodesAnswer:
        """Never worse than offline: an episode whose title or summary echoes the prompt's
        example, says nothing or is not grounded in its lines gets the offline answer's."""
        examples = example_texts(request.prompt, request.schema)
        answers = {answer.id: answer for answer in parsed.episodes}
        wrong: dict[int, str] = {}
        for item in batch:
            answer = answers.get(item["id"])
            said = "\n".join(f"{line['author']}: {line['text']}" for line in item["lines"])
            names = [line["author"] for line in item["lines"]]
            problem = (
                "missing"
                if answer is None
                else unusable_text(f"{answer.title} {answer.summary}", said, examples, names=names)
            )
            if problem:
                wrong[item["id"]] = problem
        if not wrong:
            return parsed
        offline = (await self._offline.complete(request)).parsed
        assert isinstance(offline, EpisodesAnswer)
        for answer in offline.episodes:
            if answer.id in wrong:
                answers[answer.id] = answer
        self._telemetry.emit(
            "llm_call",
            outcome="degraded",
            reason="unusable_output",
            detail=", ".join(sorted(set(wrong.values()))),
            items=len(wrong),
            provider=provider,
            purpose="episode",
            guild_id=request.guild_id,
        )
        return EpisodesAnswer(episodes=list(answers.values()))

    async def _run(
        self, guild_id: int, batch: Sequence[dict[str, Any]], *, close: bool, model: bool
    ) -> int:
        provider, parsed = await self._ask(guild_id, batch, model=model)
        answers = {answer.id: answer for answer in parsed.episodes}
        stored = 0
        for item in batch:
            answer = answers.get(item["id"])
            if answer is None:
                continue
            stored += await store.save_summary(
                self._pool,
                guild_id,
                item["id"],
                message_count=item["count"],
                title=truncate(answer.title.strip(), TITLE_CHARS),
                summary=truncate(answer.summary.strip(), SUMMARY_CHARS),
                open_loops=[
                    truncate(loop.strip(), LOOP_CHARS) for loop in answer.open_loops[:OPEN_LOOPS]
                ],
                provider=provider,
                close=close,
            )
        self._telemetry.emit(
            "episode_summaries",
            guild_id=guild_id,
            episodes=len(batch),
            stored=stored,
            provider=provider,
        )
        return stored
