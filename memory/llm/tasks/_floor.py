"""Notes for many members in one answer, kept item by item: each member's note (and each
learned fact) the model got wrong is replaced by the offline provider's, and one the model
left out is filled from it, so a day is never stored emptier than offline would make it."""

from __future__ import annotations

from collections.abc import Callable

from memory.llm.tasks._calls import Answered, TaskCalls
from memory.llm.tasks._elements import by_member, resolve_member
from memory.llm.tasks._schemas import DailySummaries, LearnedItem, PromptMember
from memory.llm.tasks._vetting import echoes, grounded

Sources = Callable[[int], str]


def member_names(members: list[PromptMember]) -> list[str]:
    return [name for member in members for name in (member.name, *member.aliases)]


def note_problems(
    notes: dict[int, str], sources: Sources, names: list[str], examples: list[str]
) -> dict[int, str]:
    """user id -> what is wrong with the model's note ("missing" when it wrote none)."""
    problems: dict[int, str] = {}
    for user_id, note in notes.items():
        if not note.strip():
            problems[user_id] = "missing"
        elif echoes(note, examples):
            problems[user_id] = "echo"
        elif not grounded(note, sources(user_id), names=names):
            problems[user_id] = "ungrounded"
    return problems


def fact_problems(
    learned: list[LearnedItem], transcript: str, names: list[str], examples: list[str]
) -> list[str]:
    """What is wrong with each learned fact ("" when nothing)."""
    found = []
    for item in learned:
        if echoes(item.statement, examples) or echoes(item.subject, examples):
            found.append("echo")
        elif not grounded(item.statement, transcript, names=names):
            found.append("ungrounded")
        else:
            found.append("")
    return found


def filled_notes(
    notes: dict[int, str], problems: dict[int, str], offline: dict[int, str]
) -> tuple[dict[int, str], list[str]]:
    """The notes with each problem's member taken from offline; what was replaced."""
    kept = dict(notes)
    replaced = []
    for user_id, problem in problems.items():
        if problem != "missing":
            kept[user_id] = offline.get(user_id, "")
            replaced.append(problem)
        elif offline.get(user_id):
            kept[user_id] = offline[user_id]
            replaced.append(problem)
    return kept, replaced


def floored_facts(
    learned: list[LearnedItem], problems: list[str], offline: list[LearnedItem]
) -> list[LearnedItem]:
    """The model's good facts, then the offline facts about what they do not cover."""
    kept = [item for item, problem in zip(learned, problems, strict=True) if not problem]
    covered = {(item.user_id, item.subject.split(":")[0]) for item in kept}
    return kept + [
        item for item in offline if (item.user_id, item.subject.split(":")[0]) not in covered
    ]


def stretch_answer(
    result: DailySummaries, members: list[PromptMember], max_chars: int
) -> tuple[dict[int, str], list[LearnedItem]]:
    """Notes per member and the learned facts about them, named by id from here on."""
    wanted = {member.user_id for member in members}
    learned = []
    for item in result.facts:  # named by handle in the answer
        user_id = resolve_member(item.user_id, members)
        if user_id in wanted:
            learned.append(item.model_copy(update={"user_id": str(user_id)}))
    return by_member(result, members, max_chars), learned


async def floored_notes(
    task: TaskCalls,
    answered: Answered[DailySummaries],
    members: list[PromptMember],
    max_chars: int,
    sources: Sources,
) -> dict[int, str]:
    """by_member of a many-member answer, each unusable note the offline provider's."""
    notes = by_member(answered.parsed, members, max_chars)
    if not task.checks(answered):
        return notes
    problems = note_problems(notes, sources, member_names(members), answered.examples())
    if not problems:
        return notes
    offline = by_member(await task.offline_answer(answered), members, max_chars)
    notes, replaced = filled_notes(notes, problems, offline)
    said_degraded(task, answered, replaced)
    return notes


async def floored_stretch(
    task: TaskCalls,
    answered: Answered[DailySummaries],
    members: list[PromptMember],
    max_chars: int,
    transcript: str,
) -> tuple[dict[int, str], list[LearnedItem]]:
    """A stretch's notes and learned facts, each one the model got wrong (not grounded in
    the `transcript`, an echo of the prompt's examples) replaced by the offline provider's."""
    notes, learned = stretch_answer(answered.parsed, members, max_chars)
    if not task.checks(answered):
        return notes, learned
    names = member_names(members)
    examples = answered.examples()
    problems = note_problems(notes, lambda _user_id: transcript, names, examples)
    wrong_facts = fact_problems(learned, transcript, names, examples)
    if not problems and not any(wrong_facts):
        return notes, learned
    offline_notes, offline_learned = stretch_answer(
        await task.offline_answer(answered), members, max_chars
    )
    notes, replaced = filled_notes(notes, problems, offline_notes)
    learned = floored_facts(learned, wrong_facts, offline_learned)
    said_degraded(task, answered, replaced + [wrong for wrong in wrong_facts if wrong])
    return notes, learned


def said_degraded(task: TaskCalls, answered: Answered[DailySummaries], problems: list[str]) -> None:
    """One degraded event for all of an answer's replaced items."""
    if problems:
        task.degraded(answered, items=len(problems), detail=", ".join(sorted(set(problems))))
