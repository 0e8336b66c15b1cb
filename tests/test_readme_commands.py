"""The README's command table names every `memorybot` command and every one of its flags, so
an admin reading it (as the contract asks) never meets an option only `--help` tells of."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

from bot.cli import build_parser

README = Path(__file__).resolve().parents[1] / "README.md"


def _rows() -> list[str]:
    """The first cell of each row of the command table."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Command line") : text.index("## Configuration")]
    return [line.split(" | ")[0] for line in section.splitlines() if line.startswith("| `")]


def _commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], list[list[str]]]]:
    """(command path, the option strings of each of its options), leaves and groups alike."""
    options = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, (*path, name))
        elif action.option_strings and "--help" not in action.option_strings:
            options.append(list(action.option_strings))
    if path:
        yield path, options


def _names_command(cell: str, path: tuple[str, ...]) -> bool:
    """`user optout\\|optin --guild` names both `user optout` and `user optin`."""
    words = re.findall(r"[a-z][a-z-]*", cell.replace("\\|", " "))
    if path[0] not in words:
        return False
    return all(part in words for part in path)


def test_every_command_and_flag_is_in_the_readme_table() -> None:
    rows = _rows()
    missing = []
    for path, options in _commands(build_parser()):
        cells = [cell for cell in rows if _names_command(cell, path)]
        if not cells:
            missing.append(" ".join(path))
            continue
        for strings in options:
            if not any(
                re.search(re.escape(option) + r"(?![\w-])", cell)
                for cell in cells
                for option in strings
            ):
                missing.append(f"{' '.join(path)} {strings[-1]}")
    assert not missing, f"not in the README's command table: {missing}"


def test_the_usage_guide_says_how_to_quit_the_console_and_what_it_may_do() -> None:
    text = (README.parent / "docs" / "usage.md").read_text(encoding="utf-8")
    offline = text[text.index("Offline (`memorybot console`") :]
    assert "/quit" in offline and "Ctrl-D" in offline and "Ctrl-C" in offline
    assert "Manage Server" in offline
    assert "`/help` on Discord lists the bot's commands" in offline


def test_the_readme_opens_with_a_first_ten_minutes_then_its_contents() -> None:
    """Issue 37.16: the first screen takes a newcomer from clone to an answer (at most 40
    lines: run, talk, import, ask, costs), then a table of contents."""
    text = README.read_text(encoding="utf-8")
    first = text[text.index("## The first ten minutes") : text.index("## Contents")]
    assert len(first.splitlines()) <= 40
    for step in ("make run", "Bot, remember that", "import docs/sample-export", "console --guild"):
        assert step in first, step
    assert "memorybot usage" in first and "DISCORD_TOKEN" in first
    assert text.index("## Contents") < text.index("## Quick start")
    assert "](docs/usage.md)" in text[text.index("## Contents") :]
