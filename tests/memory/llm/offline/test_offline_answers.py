"""The offline provider answers a question about the past from the messages the reply prompt
recalled (the prompt rendered from prompts/reply.xml as the composer renders it), quoting the
hit that shares the question's rarest words, with who said it and when."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from memory.llm import MemoryLLM, OfflineProvider
from memory.recall import RecallHit
from memory.replies._recalled import render_recalled
from prompts.loader import Raw, element, join, render


def _prompt(question: str, recalled: list[Raw], author: str = "Caroline") -> str:
    return render(
        "reply",
        persona="a friendly bot",
        bot_name="Bot",
        memories=join(recalled),
        window_summary="",
        window_turns=Raw(""),
        author_id=2,
        author_name=author,
        message=question,
    )


async def _answer(question: str, recalled: list[Raw], author: str = "Caroline") -> str:
    inputs: dict[str, object] = {
        "message": question,
        "author_name": author,
        "bot_name": "Bot",
        "memories": [],
        "window_summary": "",
        "turns": [],
    }
    return await MemoryLLM(OfflineProvider()).reply(
        prompt=_prompt(question, recalled, author), inputs=inputs, guild_id=1
    )


MUSEUM_DAY = [
    element(
        "recalled",
        "Melanie is going to be so good at this, go go go",
        day="2023-07-01",
        author="Caroline",
    ),
    element(
        "recalled",
        "Yesterday I took the kids to the museum & the dinosaurs were a hit",
        day="2023-07-06",
        author="Melanie",
    ),
    element(
        "recalled",
        "going to the beach with the kids this weekend",
        day="2023-07-02",
        author="Melanie",
    ),
    # the asking message itself, recalled: a question never answers a question
    element("recalled", "When did Melanie go to the museum?", day="2023-07-09", author="Caroline"),
]


async def test_a_question_is_answered_by_the_hit_with_its_rarest_words() -> None:
    answer = await _answer("Bot, when did Melanie go to the museum?", MUSEUM_DAY)
    assert answer == (
        'On Thu 6 July 2023 Melanie said: "Yesterday I took the kids to the museum & the'
        ' dinosaurs were a hit"'
    )
    assert "beach" not in answer and "go go go" not in answer


async def test_attributes_the_composer_may_add_are_read_tolerantly() -> None:
    recalled = [
        element(
            "recalled",
            'I signed up for the "Pride" pottery class',
            date="Sat 8 July 2023",
            author="Caroline",
            channel="general",
            url="https://discord.com/channels/1/2/3",
        ),
        element("recalled", "pottery is fun", date="2023-07-01T10:00:00+00:00", author="Bob"),
        element("recalled", "the class starts at noon", date="2023-07-01", author="Bob"),
    ]
    answer = await _answer("what pottery class did Caroline sign up for", recalled, "Melanie")
    assert answer.startswith(
        'On Sat 8 July 2023 Caroline said in #general: "I signed up for the "Pride" pottery class"'
    )
    assert answer.endswith("<https://discord.com/channels/1/2/3>")


async def test_without_a_hit_that_shares_a_word_the_reply_says_what_it_can_do() -> None:
    recalled = [element("recalled", "lovely weather today", day="2023-07-01", author="Bob")]
    answer = await _answer("Bot, when did Melanie go to the museum?", recalled)
    assert "offline mode" in answer and "weather" not in answer


async def test_an_answer_to_a_recalled_question_is_found_by_the_questions_words() -> None:
    """'How is the new flat?' and the reply after it share a hit: the reply, which never says
    'flat', answers 'what did Alice say about her new flat?', quoted with what it answered."""
    flat = [
        element(
            "recalled",
            "welcome to the sunny side, Alice. How is the new flat?",
            hit="1",
            kind="message",
            role="match",
            date="Mon 4 May 2026",
            author="Bob",
        ),
        element(
            "recalled",
            "small but it has a balcony, so the tomatoes came with me",
            hit="1",
            kind="message",
            role="after",
            date="Mon 4 May 2026",
            author="Alice",
        ),
    ]

    answer = await _answer("what did Alice say about her new flat?", flat, author="Carol")

    assert answer.startswith("On Mon 4 May 2026 Alice said (answering Bob:")
    assert '"small but it has a balcony, so the tomatoes came with me"' in answer


async def test_a_message_that_answers_beats_a_day_summary_retelling_it() -> None:
    wasps = [
        element(
            "recalled",
            "I'm allergic to wasps, so I always carry my epipen on trips",
            hit="1",
            kind="message",
            date="Tue 5 May 2026",
            author="Bob",
        ),
        element(
            "recalled",
            'Bob said: "I\'m allergic to wasps, so I always carry my epipen on trips".',
            hit="2",
            kind="summary",
            date="Tue 5 May 2026",
            author="Bob",
        ),
    ]

    answer = await _answer("who is allergic to wasps?", wasps)

    assert answer.count("allergic to wasps") == 1
    assert "Bob said: \"I'm allergic" in answer and 'Bob said: "Bob said' not in answer


async def test_a_hit_rendered_by_the_composer_is_read_back_line_by_line() -> None:
    """The composer's transcript form (memory/replies/_recalled.py): each line keeps its
    speaker, a line said on another day its own date, and the answer after a question is
    quoted with the question it answered."""
    at = datetime(2026, 5, 4, 18, 30, tzinfo=UTC)
    asked = RecallHit("message", at, "2026-05-04", 2, "Bob", "How is the new flat?", 1.0, 5, 41)
    answered = RecallHit(
        "message",
        at.replace(day=5),
        "2026-05-05",
        3,
        "Alice",
        "small but it has a balcony,\nso the tomatoes came with me",
        0.0,
        5,
        42,
        side="after",
        tier=1,
    )
    recalled, _ = render_recalled([replace(asked, context=(answered,))], 1, budget=10_000)

    answer = await _answer("what did Alice say about her new flat?", [recalled], author="Carol")

    assert answer.startswith("On Tue 5 May 2026 Alice said (answering Bob:")
    assert '"small but it has a balcony, / so the tomatoes came with me"' in answer


async def test_later_hits_found_lines_are_read_back_each_as_a_hit_of_its_own() -> None:
    """The `kind="more"` element (later hits' found lines, each dated): a line is quoted on
    its own day, and a line after another hit's question is not taken as its answer."""
    at = datetime(2026, 5, 4, 18, 30, tzinfo=UTC)
    full = [
        RecallHit("message", at, "2026-05-04", 2, "Bob", f"unrelated chatter {n}", 1.0, 5, n)
        for n in range(1, 5)
    ]
    asked = RecallHit(
        "message", at.replace(day=1), "2026-05-01", 2, "Bob", "Who has a ferret?", 0.5, 5, 40
    )
    adopted = RecallHit(
        "message", at.replace(day=3), "2026-05-03", 3, "Alice", "I adopted a ferret!", 0.5, 5, 90
    )
    recalled, _ = render_recalled([*full, asked, adopted], 1, budget=10_000)
    assert '<recalled hit="5" kind="more">' in str(recalled)

    answer = await _answer("which pet did Alice adopt?", [recalled], author="Carol")

    assert answer.startswith('On Sun 3 May 2026 Alice said: "I adopted a ferret!"'), answer
