"""What `memorybot import` shows while an import settles (`memory.ports.Imports.settle`):
a spinner per step on a terminal, a day counter while days close, one line per guild and
step on stdout (what a log keeps), a step left undone on stderr."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TextIO

from bot.cli import plural
from bot.cli.progress import working
from memory.ports import CLOSED, EMBEDDED, EPISODES, Settled


class SettleWatcher:
    """The import command's `ImportWatcher`: lines on `out`, spinners and the counter on
    `err` only when it is a terminal and `progress` is on."""

    def __init__(self, out: TextIO, err: TextIO, *, progress: bool) -> None:
        self._out = out
        self._err = err
        self._live = progress and err.isatty()

    def working(self, what: str) -> AbstractContextManager[None]:
        return working(what, stream=self._err)

    def closing(self, done: int, due: int) -> None:
        if not self._live:
            return
        print(f"\rlearning from the imported days: {done}/{due}", end="", file=self._err)
        if done == due:
            print(file=self._err)
        self._err.flush()

    def settled(self, step: Settled) -> None:
        print(_line(step), file=self._err if step.problem else self._out)


def _line(step: Settled) -> str:
    name = step.guild_name
    if step.step == EPISODES:
        return f"episodes of {name}: {step.count} cut"
    if step.step == EMBEDDED and step.problem:
        return (
            f"memorybot import: messages of {name} not embedded ({step.problem}); importing"
            " the same files again embeds the rest (recall by words meanwhile)"
        )
    if step.step == EMBEDDED:
        if not step.count:
            return f"messages of {name}: embedded for recall by meaning already"
        return f"messages of {name}: {step.count:,} embedded for recall by meaning"
    if step.step == CLOSED and step.due:
        return f"closed {plural(step.count, 'day')} of {name} (summaries and learned facts kept)"
    return f"{name}: every day that is over was closed already"
