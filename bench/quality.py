"""Reply quality: do the messages that answer a question reach the reply prompt?

    python -m bench.quality [--members 5] [--sessions 30] [--days 150] [--per-kind 10]
                            [--seed 0] [--large] [--split tuned|dev|both]

A seeded chat (bench/quality_data.py: members meeting in sessions over months, planted facts,
dated events, changes of mind, filler) is imported as a DiscordChatExporter file through the
importer, embedded for recall by meaning (the default local embedder) and put through the
import command's learning pass (days closed with the offline provider, as `memorybot import`
does). Then every question is asked in the console's code path
(`bot.console.ConsoleSession`, "Bot, <question>" by another member, half an hour apart so the
conversation window of the last question has faded) with a recording model: the reply
purpose answers a fixed line and keeps the exact prompt; every other purpose is the offline
provider. Per kind of question: the share whose evidence messages are all in the prompt, whose
answer words are, the never-said questions that carry false evidence (their unsaid term echoed
back, e.g. by recalling the question itself), prompt tokens p50 and the console turn's time
(reply overhead, the model answering instantly) p50/p99.

A fast smoke test of retrieval on chats generated from templates; memory changes are judged on
real conversations (bench/locomo.py). Two splits, each figure tagged with its `split`: `tuned`
(bench/quality_data.py, the chats the retrieval code grew up with) and `dev`
(bench/quality_heldout.py, once called held-out: other people, topics and
phrasings, answers said in exchanges and over two messages, lines that share a question's
words without answering it; nothing in memory/ or db/ names it). It was used to judge changes,
so it is a development split, not a held-out one.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import asyncpg

from bench.database import BenchServer, bench_server
from bench.harness import bench_settings
from bench.providers import TOKENIZER, fast_tokens
from bench.quality_data import ALL_KINDS, KINDS, QualityChat, Question, generate
from bench.quality_days import StoredEpisode
from bench.quality_episodes import score_episodes, summarised_episodes
from bench.quality_heldout import HELDOUT_KINDS, TWO_KIND, generate_heldout
from bench.quality_score import Score, score
from bench.report import Reporter, percentile, share
from bot.console import ConsoleSession
from memory.core import event_loop
from memory.core.clock import FixedClock
from memory.core.telemetry import Telemetry
from memory.llm import MemoryLLM, OfflineProvider
from memory.llm.providers import LLMProvider, LLMRequest, LLMResponse, Purpose
from memory.wiring import Memory, open_memory

_log = logging.getLogger(__name__)

BENCH = "quality"
ANSWER = "Let me think about that."
# Longer than the window's hard decay (30 minutes): each question starts a fresh conversation.
QUESTION_GAP = timedelta(minutes=31)
LARGE = {"members": 8, "sessions": 60, "days": 365, "per_kind": 12}
# A reply's search waits REPLY_SEMANTIC_WAIT_SECONDS (0.6 s) for the nearest in meaning, then
# goes on without them: on a loaded machine that moved the figures between runs of one commit.
# The benches wait them out (the embedder's own time limit still holds), so a figure says what
# the reply path finds, not how busy the machine was.
SEMANTIC_WAIT_SECONDS = 60.0
SPLITS = ("tuned", "dev")


class RecordingProvider(LLMProvider):
    """The model of the reply purpose: answers `ANSWER` and keeps every prompt it was sent.
    Every other purpose (notes, days, learned facts, folds) is the offline provider's."""

    name = "recording"

    def __init__(self) -> None:
        self.offline = OfflineProvider()
        self.prompts: list[str] = []

    def model_for(self, purpose: Purpose) -> str:
        return self.name if purpose == "reply" else self.offline.model_for(purpose)

    async def complete(self, request: LLMRequest) -> LLMResponse:
        if request.purpose != "reply":
            return await self.offline.complete(request)
        self.prompts.append("\n".join(part for part in (request.system, request.prompt) if part))
        return LLMResponse(text=ANSWER, provider=self.name, model=self.name)


@asynccontextmanager
async def recorded_memory(
    pool: asyncpg.Pool,
    clock: FixedClock,
    recorder: RecordingProvider,
    *,
    local_embeddings: bool = True,
) -> AsyncIterator[Memory]:
    """Memory as the default install opens it (offline, production defaults but for the wait
    for the nearest in meaning), on `pool` and `clock`, with `recorder` as its model: what the
    quality benches ask through. `local_embeddings=False`: full text alone
    (LOCAL_EMBEDDINGS=false)."""
    settings = bench_settings(
        llm_provider="offline",
        bot_name="Bot",
        telemetry_stdout=False,
        reply_semantic_wait_seconds=SEMANTIC_WAIT_SECONDS,
        local_embeddings=local_embeddings,
    )
    async with open_memory(
        settings,
        clock=clock,
        telemetry=Telemetry(keep_recent=100),
        pool=pool,
        llm=MemoryLLM(recorder),
    ) as memory:
        yield memory


@dataclass(frozen=True)
class Asked:
    """One question's outcome: its score, prompt tokens (None: no reply prompt) and time."""

    question: Question
    score: Score
    tokens: int | None
    millis: float


async def run(
    pool: asyncpg.Pool,
    report: Reporter,
    *,
    members: int = 5,
    sessions: int = 30,
    days: int = 150,
    per_kind: int = 10,
    seed: int = 0,
    split: str = "tuned",
) -> list[Asked]:
    """Generate `split`'s chat, import, ask; print the figures and return every question's
    outcome."""
    make = generate_heldout if split == "dev" else generate
    chat = make(seed=seed, members=members, sessions=sessions, days=days, per_kind=per_kind)
    params = {
        "split": split,
        "members": members,
        "sessions": sessions,
        "days": days,
        "messages": len(chat.lines),
        "seed": seed,
    }
    recorder = RecordingProvider()
    clock = FixedClock(chat.ask_at)
    began = time.perf_counter()
    async with recorded_memory(pool, clock, recorder) as memory:
        with tempfile.TemporaryDirectory(prefix="memorybot-quality-") as folder:
            importer = memory.imports.importer(include_bots=False)
            results = []
            for channel_id in chat.channels:
                path = Path(folder) / f"{channel_id}.json"
                path.write_text(json.dumps(chat.export(channel_id)), encoding="utf-8")
                results.append(await importer.import_file(path))
        # What `memorybot import` does next (episodes, vectors, the days closed): its own code.
        await memory.imports.settle(importer, results, learn=True)
        report(BENCH, "import_and_learn_s", time.perf_counter() - began, "s", **params)
        await score_episodes(memory, chat, report, params)
        episodes = await summarised_episodes(memory, chat)
        session = ConsoleSession(memory, guild_id=chat.guild_id, channel_id=min(chat.channels))
        asked = [
            await _ask(memory, session, clock, recorder, chat, q, episodes) for q in chat.questions
        ]
    _report(report, asked, params)
    return asked


async def _ask(
    memory: Memory,
    session: ConsoleSession,
    clock: FixedClock,
    recorder: RecordingProvider,
    chat: QualityChat,
    question: Question,
    episodes: dict[int, StoredEpisode],
) -> Asked:
    """Ask as the question's asker in the console; the prompt the reply model got, scored."""
    clock.advance(QUESTION_GAP)
    turn = await ask_recorded(memory, session, recorder, question.asker, question.text)
    return Asked(question, score(chat, question, turn.prompt, episodes), turn.tokens, turn.millis)


@dataclass(frozen=True)
class RecordedTurn:
    """What one question to the bot cost: the reply prompt (None: none was sent), its tokens
    with the bench's tokenizer, and the console turn's time."""

    prompt: str | None
    tokens: int | None
    millis: float


async def ask_recorded(
    memory: Memory, session: ConsoleSession, recorder: RecordingProvider, asker: str, question: str
) -> RecordedTurn:
    """ "Bot, <question>" said in the console as `asker`, and the prompt `recorder` got. What
    was said before is embedded first (on a server, questions half an hour apart find it so)."""
    await memory.embeddings.settled()
    await session.handle_line(f"/as {asker}")
    before = len(recorder.prompts)
    started = time.perf_counter()
    await session.handle_line(f"{session.bot_name}, {question}")
    millis = (time.perf_counter() - started) * 1000
    prompt = recorder.prompts[-1] if len(recorder.prompts) > before else None
    return RecordedTurn(prompt, fast_tokens(prompt) if prompt is not None else None, millis)


def _report(report: Reporter, asked: list[Asked], params: dict[str, Any]) -> None:
    """Per kind, then over the recall kinds ("all"; evidence and answers over the kinds that
    have them; the day questions are reported on their own, so "all" compares with runs
    before they were added)."""
    common = {"tokenizer": TOKENIZER, **params}
    recall_kinds = HELDOUT_KINDS if params.get("split") == "dev" else KINDS
    for kind in (*ALL_KINDS, TWO_KIND, "all"):
        mine = [
            a
            for a in asked
            if a.question.kind == kind or (kind == "all" and a.question.kind in recall_kinds)
        ]
        if not mine:
            continue
        line = {"kind": kind, "questions": len(mine), **common}
        evidence = [a.score.evidence for a in mine if a.question.evidence_ids]
        answers = [a.score.answer for a in mine if a.question.answer]
        false = [a.score.false_evidence for a in mine if kind == a.question.kind == "never_said"]
        if evidence:
            report(BENCH, "evidence_in_prompt", share(evidence), "fraction", **line)
        if answers:
            report(BENCH, "answer_words_in_prompt", share(answers), "fraction", **line)
        if false:
            report(BENCH, "false_evidence", share(false), "fraction", **line)
        tokens = [a.tokens for a in mine if a.tokens is not None]
        report(BENCH, "prompt_tokens_p50", percentile(tokens, 0.5), "tokens", **line)
        report(BENCH, "no_reply_prompt", len(mine) - len(tokens), "questions", **line)
        millis = [a.millis for a in mine]
        report(BENCH, "reply_overhead_p50_ms", percentile(millis, 0.5), "ms", **line)
        report(BENCH, "reply_overhead_p99_ms", percentile(millis, 0.99), "ms", **line)


async def run_in(server: BenchServer, report: Reporter, **options: Any) -> list[Asked]:
    """`run` in a fresh database of `server`."""
    async with server.pool(f"quality_{options.get('split', 'tuned')}") as pool:
        return await run(pool, report, **options)


async def run_splits(server: BenchServer, report: Reporter, **options: Any) -> list[Asked]:
    """`run_in` for each split (the tuned one first)."""
    asked = []
    for split in SPLITS:
        asked += await run_in(server, report, split=split, **options)
    return asked


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=5)
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--days", type=int, default=150)
    parser.add_argument("--per-kind", type=int, default=10, help="questions of each kind")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--large", action="store_true", help=f"a larger run: {LARGE}")
    parser.add_argument("--show", action="store_true", help="print each question's outcome")
    parser.add_argument("--split", choices=(*SPLITS, "both"), default="both")
    args = parser.parse_args(argv)
    sizes = {
        "members": args.members,
        "sessions": args.sessions,
        "days": args.days,
        "per_kind": args.per_kind,
    }
    if args.large:
        sizes = dict(LARGE)
    report = Reporter()
    async with bench_server() as server:
        if args.split == "both":
            asked = await run_splits(server, report, seed=args.seed, **sizes)
        else:
            asked = await run_in(server, report, seed=args.seed, split=args.split, **sizes)
    if args.show:
        for item in asked:
            print(json.dumps(_outcome(item), ensure_ascii=False), file=sys.stderr)
    return 0


def _outcome(item: Asked) -> dict[str, Any]:
    question = item.question
    return {
        "kind": question.kind,
        "subject": question.subject,
        "question": question.text,
        "evidence": item.score.evidence,
        "answer": item.score.answer,
        "false_evidence": item.score.false_evidence,
        "tokens": item.tokens,
        "ms": round(item.millis, 1),
    }


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    sys.exit(event_loop.run(main()))
