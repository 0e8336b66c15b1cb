"""The quality bench: LoCoMo's real long conversations through the real import and reply paths.

    python -m bench.locomo [--conversations N] [--every K] [--show] [--without-vectors]
    (LOCOMO_DATA: another file)
    python -m bench --only locomo [--write-docs]

Each conversation (bench/locomo_data.py) becomes a guild through `memorybot import`'s code
(`memory.imports`): the importer, then what the command does after its files (episodes cut
and summarised, the messages embedded with the default local embedder, every day closed with
the offline provider). Then each question is
asked in the console's code path (`bot.console.ConsoleSession`, "Bot, <question>" as the
speaker it is not about, on the day after the last session, each in a channel of its own so no
question sits in another's conversation window) with a recording model: the reply purpose
answers a fixed line and keeps the exact prompt; every other purpose is the offline provider,
the default install's.

Per category (single_hop, multi_hop, temporal, open_domain, and "all" over the four; the
adversarial ones have no answer to find): the share whose evidence turns are all in the
prompt's memories, any of them, the answer's words, prompt tokens p50/p95 with a real
tokenizer, and the console turn's time p50/p99 (reply overhead: the model answers at once).
Each figure says its `embedder`: "local" (the default install) and, with `--without-vectors`
(`python -m bench --only locomo` asks for it), "none": full text alone, what the local embedder
adds to the evidence measured in the same run.
Reads the development half beside the checkout (../shared/data); without it the bench prints
one line and skips, and under CI=true it fails.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import asyncpg

from bench.database import BenchServer, bench_server
from bench.locomo_data import ANSWERABLE, Conversation, Question, dataset_path, load
from bench.locomo_learner import LearnerScore, judge, labels, learned_facts
from bench.locomo_score import Score, score
from bench.needs import require_file
from bench.providers import TOKENIZER
from bench.quality import RecordingProvider, ask_recorded, recorded_memory
from bench.report import Reporter, percentile, share
from bot.console import ConsoleSession
from memory.core import event_loop
from memory.core.clock import FixedClock
from memory.wiring import Memory

_log = logging.getLogger(__name__)

BENCH = "locomo"
QUESTION_GAP = timedelta(minutes=1)
# Each question's channel: far from the conversation's own ids.
CHANNEL_BASE = 500_000
# What recall looks up meaning with: the default install's local embedder, or nothing (full
# text alone, LOCAL_EMBEDDINGS=false): the figures' `embedder`, so the two stand side by side.
LOCAL, NONE = "local", "none"


@dataclass(frozen=True)
class Asked:
    conversation: str
    question: Question
    score: Score
    tokens: int | None
    millis: float


def available() -> list[Conversation] | None:
    """The conversations, or None after one line saying what is missing (under CI=true that
    line ends the run: bench/needs.py)."""
    if not require_file(dataset_path(), "the LoCoMo development set"):
        return None
    return load()


async def run(
    pool: asyncpg.Pool,
    report: Reporter | None,
    chat: Conversation,
    *,
    every: int = 1,
    embedder: str = LOCAL,
) -> tuple[list[Asked], LearnerScore]:
    """Import one conversation, close its days, judge what was learned, ask every `every`-th
    question (`embedder`: LOCAL, the default install's, or NONE, full text alone)."""
    recorder = RecordingProvider()
    clock = FixedClock(chat.ask_at)
    began = time.perf_counter()
    vectors = embedder == LOCAL
    async with recorded_memory(pool, clock, recorder, local_embeddings=vectors) as memory:
        with tempfile.TemporaryDirectory(prefix="memorybot-locomo-") as folder:
            path = Path(folder) / f"{chat.sample_id}.json"
            path.write_text(json.dumps(chat.export()), encoding="utf-8")
            importer = memory.imports.importer(include_bots=False)
            result = await importer.import_file(path)
        # What `memorybot import` does next (episodes, vectors, the days closed): its own code.
        await memory.imports.settle(importer, [result], learn=True)
        learner = judge(chat, await learned_facts(pool, chat))
        if report is not None:
            seconds = time.perf_counter() - began
            where = {"conversation": chat.sample_id, "embedder": embedder}
            report(BENCH, "import_and_learn_s", seconds, "s", **where)
        asked = []
        for number, question in enumerate(chat.questions):
            if number % every == 0:
                asked.append(await _ask(memory, clock, recorder, chat, question))
    return asked, learner


async def _ask(
    memory: Memory,
    clock: FixedClock,
    recorder: RecordingProvider,
    chat: Conversation,
    question: Question,
) -> Asked:
    """Ask as the question's asker in a channel of its own; the reply prompt, scored."""
    clock.advance(QUESTION_GAP)
    channel = chat.channel_id + CHANNEL_BASE + question.index
    session = ConsoleSession(memory, guild_id=chat.guild_id, channel_id=channel)
    turn = await ask_recorded(memory, session, recorder, question.asker, question.text)
    scored = score(chat, question, turn.prompt)
    return Asked(chat.sample_id, question, scored, turn.tokens, turn.millis)


def report_figures(report: Reporter, asked: list[Asked], params: dict[str, Any]) -> None:
    """Per category, then "all" over the answerable ones."""
    common = {"tokenizer": TOKENIZER, **params}
    for category in (*ANSWERABLE, "adversarial", "all"):
        mine = [
            a
            for a in asked
            if a.question.category == category
            or (category == "all" and a.question.category in ANSWERABLE)
        ]
        if not mine:
            continue
        line = {"category": category, "questions": len(mine), **common}
        scored = [a.score for a in mine if a.score.scored]
        report(
            BENCH,
            "evidence_all_in_memories",
            share([s.evidence_all for s in scored]),
            "fraction",
            **line,
        )
        report(
            BENCH,
            "evidence_any_in_memories",
            share([s.evidence_any for s in scored]),
            "fraction",
            **line,
        )
        if category != "adversarial":
            report(
                BENCH,
                "answer_words_in_memories",
                share([a.score.answer_words for a in mine]),
                "fraction",
                **line,
            )
        tokens = [a.tokens for a in mine if a.tokens is not None]
        report(BENCH, "prompt_tokens_p50", percentile(tokens, 0.5), "tokens", **line)
        report(BENCH, "prompt_tokens_p95", percentile(tokens, 0.95), "tokens", **line)
        report(BENCH, "no_reply_prompt", len(mine) - len(tokens), "questions", **line)
        millis = [a.millis for a in mine]
        report(BENCH, "reply_p50_ms", percentile(millis, 0.5), "ms", **line)
        report(BENCH, "reply_p99_ms", percentile(millis, 0.99), "ms", **line)


def report_spread(report: Reporter, asked: list[Asked], params: dict[str, Any]) -> None:
    """Each conversation's prompt p50 over its answerable questions: the prompt grows with a
    conversation's member contexts, so the spread says how near the target another
    conversation may sit."""
    for sample_id in dict.fromkeys(a.conversation for a in asked):
        tokens = [
            a.tokens
            for a in asked
            if a.conversation == sample_id
            and a.question.category in ANSWERABLE
            and a.tokens is not None
        ]
        if tokens:
            where = {"conversation": sample_id, "category": "all", **params}
            report(
                BENCH, "conversation_prompt_tokens_p50", percentile(tokens, 0.5), "tokens", **where
            )


async def run_all(
    server: BenchServer,
    report: Reporter,
    *,
    conversations: int | None = None,
    every: int = 1,
    without_vectors: bool = False,
) -> list[Asked]:
    """Every conversation in a fresh database of `server`; the figures over all of them (with
    `without_vectors`, again with full text alone: what the local embedder adds)."""
    chats = available()
    if chats is None:
        return []
    chats = chats[:conversations] if conversations else chats
    params = {"conversations": len(chats), "every": every}
    asked: list[Asked] = []
    for embedder in (LOCAL, NONE) if without_vectors else (LOCAL,):
        these: list[Asked] = []
        learned: list[LearnerScore] = []
        for chat in chats:
            name = f"locomo_{embedder}_{chat.sample_id.replace('-', '_')}"
            async with server.pool(name) as pool:
                questions, learner = await run(pool, report, chat, every=every, embedder=embedder)
            these += questions
            learned.append(learner)
        report_figures(report, these, {**params, "embedder": embedder})
        report_spread(report, these, {"embedder": embedder})
        if embedder == LOCAL:
            asked = these
            report_learner(report, learned, {"conversations": len(chats)})
    return asked


def report_learner(report: Reporter, scores: list[LearnerScore], params: dict[str, Any]) -> None:
    """The learner's recall of the observations, and its precision on the labelled sample."""
    observations = sum(score.observations for score in scores)
    found = sum(score.found for score in scores)
    report(
        BENCH,
        "learner_recall",
        found / observations if observations else None,
        "fraction",
        observations=observations,
        **params,
    )
    verdicts = labels()
    sampled = [fact for score in scores for fact in score.sampled]
    judged = [verdicts[fact.key] for fact in sampled if fact.key in verdicts]
    report(
        BENCH,
        "learner_precision",
        sum(judged) / len(judged) if judged else None,
        "fraction",
        labelled=len(judged),
        sampled=len(sampled),
        **params,
    )


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=None, help="the first N only")
    parser.add_argument("--every", type=int, default=1, help="ask every K-th question")
    parser.add_argument("--show", action="store_true", help="each question's outcome on stderr")
    parser.add_argument(
        "--without-vectors", action="store_true", help="again with full text alone, to compare"
    )
    args = parser.parse_args(argv)
    report = Reporter()
    async with bench_server() as server:
        asked = await run_all(
            server,
            report,
            conversations=args.conversations,
            every=args.every,
            without_vectors=args.without_vectors,
        )
    if args.show:
        for item in asked:
            print(json.dumps(_outcome(item), ensure_ascii=False), file=sys.stderr)
    return 0


def _outcome(item: Asked) -> dict[str, Any]:
    question = item.question
    return {
        "conversation": item.conversation,
        "index": question.index,
        "category": question.category,
        "question": question.text,
        "answer": question.answer,
        "evidence": list(question.evidence),
        "all": item.score.evidence_all,
        "any": item.score.evidence_any,
        "answer_words": item.score.answer_words,
        "tokens": item.tokens,
        "ms": round(item.millis, 1),
    }


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    sys.exit(event_loop.run(main()))
