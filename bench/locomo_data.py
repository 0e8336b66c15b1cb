"""LoCoMo conversations as guilds: the data of the LoCoMo bench (bench/locomo.py).

LoCoMo (Maharana et al., ACL 2024) holds long, real two-person conversations in dated
sessions, and questions naming the turns ("D3:5") that answer them. Five of its ten
conversations are a development set beside the project (`../shared/data/locomo-dev.json.gz`,
CC BY-NC: read here, by the bench, never copied into the project, its image or product code);
`LOCOMO_DATA` names another file of the same shape (the test half, measured elsewhere).

Each conversation becomes one guild with one channel: its sessions on their dates (turns a
minute apart from the session's start), the two speakers as members, an image's caption as the
attachment's description (what DiscordChatExporter calls it). Every question is asked by the
speaker it is not about (the one it does not name; speaker B when it names both or neither)
on the day after the last session.
"""

from __future__ import annotations

import calendar
import gzip
import json
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cached_property
from pathlib import Path
from typing import Any

from bench.chat_export import exported_channel, exported_message

# Where the development half lies beside a checkout (shared/ next to the repository).
DEFAULT_PATH = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo-dev.json.gz"
CATEGORIES = {1: "multi_hop", 2: "temporal", 3: "open_domain", 4: "single_hop", 5: "adversarial"}
# The four answerable categories: what "all" covers (adversarial questions have no answer).
ANSWERABLE = ("single_hop", "multi_hop", "temporal", "open_domain")
TURN_GAP = timedelta(minutes=1)
GUILD_BASE = 900_000_000_000_000_000
_SESSION_DATE = re.compile(
    r"(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})", re.I
)
_MONTHS = {name.lower(): index for index, name in enumerate(calendar.month_name) if name}


class DatasetMissing(RuntimeError):
    """The LoCoMo file is not where the bench looks: the message says where it looked."""


@dataclass(frozen=True)
class Turn:
    dia_id: str
    message_id: int
    speaker: str
    text: str
    caption: str | None
    at: datetime


@dataclass(frozen=True)
class Question:
    index: int
    category: str
    text: str
    answer: str
    evidence: tuple[str, ...]
    asker: str


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    guild_id: int
    channel_id: int
    speakers: tuple[str, str]
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]
    # What the benchmark's annotators say each speaker revealed: (speaker, fact, dia_id).
    observations: tuple[tuple[str, str, str], ...]

    @property
    def ask_at(self) -> datetime:
        """Noon on the day after the last session."""
        last = max(turn.at for turn in self.turns)
        return datetime.combine(last.date() + timedelta(days=1), datetime.min.time(), UTC).replace(
            hour=12
        )

    def turn(self, dia_id: str) -> Turn | None:
        return self._by_dia.get(dia_id)

    @cached_property
    def _by_dia(self) -> dict[str, Turn]:
        return {turn.dia_id: turn for turn in self.turns}

    def member_id(self, speaker: str) -> int:
        return self.guild_id + 1 + self.speakers.index(speaker)

    def export(self) -> dict[str, Any]:
        """The channel as a DiscordChatExporter JSON export (what `memorybot import` reads)."""
        return exported_channel(
            (self.guild_id, f"LoCoMo {self.sample_id}"),
            (self.channel_id, "chat"),
            [self._exported(turn) for turn in self.turns],
        )

    def _exported(self, turn: Turn) -> dict[str, Any]:
        attachments = []
        if turn.caption:
            attachments.append(
                {
                    "id": str(turn.message_id),
                    "fileName": f"photo-{turn.dia_id.replace(':', '-')}.jpg",
                    "description": turn.caption,
                }
            )
        author = (self.member_id(turn.speaker), turn.speaker.lower(), turn.speaker)
        return exported_message(turn.message_id, turn.at, turn.text, author, attachments)


def dataset_path() -> Path:
    return Path(os.environ.get("LOCOMO_DATA") or DEFAULT_PATH)


def load(path: Path | None = None) -> list[Conversation]:
    """Every conversation of the file; DatasetMissing when there is none."""
    path = path or dataset_path()
    if not path.is_file():
        raise DatasetMissing(f"LoCoMo data not found at {path} (set LOCOMO_DATA)")
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        samples = json.load(handle)
    return [conversation(sample, index) for index, sample in enumerate(samples)]


def session_time(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' as an aware datetime (UTC)."""
    found = _SESSION_DATE.search(text)
    if found is None:
        raise ValueError(f"unreadable session date: {text!r}")
    hour, minute, half, day, month, year = found.groups()
    hour_24 = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    return datetime(int(year), _MONTHS[month.lower()], int(day), hour_24, int(minute), tzinfo=UTC)


def conversation(sample: dict[str, Any], index: int) -> Conversation:
    chat = sample["conversation"]
    speakers = (str(chat["speaker_a"]), str(chat["speaker_b"]))
    guild_id = GUILD_BASE + index * 1_000_000
    turns = _turns(chat, guild_id)
    questions = tuple(
        _question(number, raw, speakers) for number, raw in enumerate(sample.get("qa", []))
    )
    observations = tuple(
        (str(speaker), str(fact), str(dia))
        for session in (sample.get("observation") or {}).values()
        for speaker, facts in session.items()
        for fact, dia in (_fact_pair(item) for item in facts)
    )
    return Conversation(
        str(sample.get("sample_id", index)),
        guild_id,
        guild_id + 100,
        speakers,
        turns,
        questions,
        observations,
    )


def _fact_pair(item: Any) -> tuple[str, str]:
    fact, dia = item[0], item[1]
    return str(fact), str(dia if not isinstance(dia, list) else dia[0])


def _turns(chat: dict[str, Any], guild_id: int) -> tuple[Turn, ...]:
    numbers = sorted(
        int(key.split("_")[1])
        for key in chat
        if re.fullmatch(r"session_\d+", key) and chat.get(f"{key}_date_time")
    )
    turns: list[Turn] = []
    for number in numbers:
        start = session_time(chat[f"session_{number}_date_time"])
        for offset, raw in enumerate(chat[f"session_{number}"]):
            turns.append(
                Turn(
                    str(raw["dia_id"]),
                    guild_id + 10_000 + len(turns),
                    str(raw["speaker"]),
                    str(raw.get("text") or ""),
                    raw.get("blip_caption"),
                    start + TURN_GAP * offset,
                )
            )
    return tuple(turns)


def _question(number: int, raw: dict[str, Any], speakers: tuple[str, str]) -> Question:
    text = str(raw["question"])
    named = [s for s in speakers if re.search(rf"\b{re.escape(s)}\b", text, re.I)]
    asker = speakers[0] if named == [speakers[1]] else speakers[1]
    answer = raw.get("answer", raw.get("adversarial_answer", ""))
    evidence = tuple(
        part.strip()
        for item in raw.get("evidence", [])
        for part in re.split(r"[;,]\s*", str(item))
        if part.strip()
    )
    return Question(
        number,
        CATEGORIES.get(int(raw.get("category", 0)), "other"),
        text,
        str(answer),
        evidence,
        asker,
    )
