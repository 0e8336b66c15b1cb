"""What tests/test_container*.py share for reading the production image and Compose files:
where they are, a small Dockerfile parser and the words of its instructions, Compose's
durations and defaults."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = "requirements.lock"
# The ingest writer waits this long for the database when the bot shuts down.
INGEST_FLUSH_TIMEOUT_SECONDS = 30
SOURCE_DIRS = {"bot", "memory", "db", "prompts"}


@dataclass
class Instruction:
    keyword: str
    args: str


@dataclass
class Stage:
    base: str
    name: str | None
    instructions: list[Instruction] = field(default_factory=list)

    def all(self, keyword: str) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword]


def parse_dockerfile(text: str) -> list[Stage]:
    """Stages with their instructions; continuation lines joined, comments dropped."""
    logical: list[str] = []
    current = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue  # Docker drops comment lines, even inside a continued instruction
        if line.endswith("\\"):
            current += line[:-1].rstrip() + " "
            continue
        logical.append(current + line)
        current = ""
    assert not current, "the Dockerfile ends inside a continued instruction"
    stages: list[Stage] = []
    for line in logical:
        keyword, _, args = line.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            words = args.split()
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else None
            stages.append(Stage(base=words[0], name=name))
        elif keyword == "ARG" and not stages:
            continue  # global ARGs before the first FROM
        else:
            assert stages, f"{keyword} before the first FROM"
            stages[-1].instructions.append(Instruction(keyword, args.strip()))
    return stages


def command_words(args: str) -> str:
    """A RUN/CMD argument in exec form (JSON) or shell form, as one string."""
    if args.startswith("["):
        return " ".join(json.loads(args))
    return args


def copy_sources(args: str) -> list[str]:
    words = [w for w in args.split() if not w.startswith("--")]
    return words[:-1]


def is_source_copy(instruction: Instruction) -> bool:
    if instruction.keyword not in {"COPY", "ADD"} or "--from=" in instruction.args:
        return False
    sources = {s.rstrip("/").removeprefix("./") for s in copy_sources(instruction.args)}
    return bool(sources & (SOURCE_DIRS | {".", "*"}))


def is_locked_install(instruction: Instruction) -> bool:
    words = instruction.args
    return (
        instruction.keyword == "RUN"
        and "pip install" in words
        and re.search(rf"(-c|--constraint)[ =]{re.escape(LOCK)}", words) is not None
    )


def duration_seconds(text: str) -> float:
    parts = re.findall(r"(\d+(?:\.\d+)?)(h|m|s|ms|us)", str(text))
    assert parts and "".join(n + u for n, u in parts) == str(text), f"bad duration {text!r}"
    scale = {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6}
    return sum(float(n) * scale[u] for n, u in parts)


def default_of(value: str) -> str:
    """`${VAR:-default}` -> default (what Compose uses when VAR is unset); other text as is."""
    match = re.fullmatch(r"\$\{[A-Z_]+:-(.+)\}", value.strip())
    return match.group(1) if match else value
