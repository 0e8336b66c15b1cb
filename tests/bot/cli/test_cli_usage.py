"""`memorybot usage`: what an import-and-summarise run spent, read back from the `llm_usage`
table every process writes as its calls complete; prices turn tokens into an estimated cost."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

import pytest

from bot.cli import main
from tests.memory.export_samples import GUILD_ID, export, sample_messages, write


def _llm_calls(log_dir: Path) -> Counter[str]:
    """Answered LLM calls per purpose, from the telemetry file the commands wrote."""
    calls: Counter[str] = Counter()
    for line in (log_dir / "telemetry.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event["op"] == "llm_call" and event["outcome"] == "ok":
            calls[event["purpose"]] += 1
    return calls


async def test_usage_prints_the_calls_of_an_import_and_a_summarise(
    cli_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exported = write(cli_env / "general.json", export(sample_messages()))
    assert await asyncio.to_thread(main, ["import", str(exported), "--no-progress"]) == 0
    summarize = ["summarize", "--guild", str(GUILD_ID), "--date", "2025-03-01"]
    assert await asyncio.to_thread(main, summarize) == 0
    capsys.readouterr()

    assert await asyncio.to_thread(main, ["usage", "--guild", "Café ☕"]) == 0
    out = capsys.readouterr().out.splitlines()
    spent = _llm_calls(cli_env / "logs")
    assert spent and sum(spent.values()) >= 2  # the import closed the day, summarise redid it
    assert out[0].startswith("LLM usage since ") and out[0].endswith(
        f"Café ☕ (guild {GUILD_ID})"
    )  # 37.7
    end = next(i for i, line in enumerate(out) if line.startswith("total"))
    rows = {line.split()[1]: line.split() for line in out[2:end]}
    assert {purpose: int(row[3]) for purpose, row in rows.items()} == dict(spent)
    assert all(row[2] == "offline" and row[-1] == "$0.0000" for row in rows.values())
    # The offline provider's tokens: estimated with the bench's tokenizer, marked as such.
    assert all(row[5].startswith("~") and row[6].startswith("~") for row in rows.values())
    assert all(int(row[5][1:].replace(",", "")) > 0 for row in rows.values())
    total = out[end].split()
    assert total[0] == "total" and int(total[1]) == sum(spent.values())
    assert total[3:5] == ["0", "0"]  # nothing a server billed
    assert out[end + 1].startswith("~: our estimate of the offline provider's tokens")

    # Every guild, and a guild with nothing spent.
    assert await asyncio.to_thread(main, ["usage", "--days", "1"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("all guilds")
    assert await asyncio.to_thread(main, ["usage", "--guild", "nowhere"]) == 1
    assert "nowhere" in capsys.readouterr().err
    with pytest.raises(SystemExit) as refused:  # argparse: one line naming the range
        await asyncio.to_thread(main, ["usage", "--days", "0"])
    assert refused.value.code == 2 and "use 1 to 3650" in capsys.readouterr().err
