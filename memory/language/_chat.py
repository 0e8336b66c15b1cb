"""The register of chat, for telling news from noise: filler, greetings and thanks, the first
person, the words a reply speaks to someone with. English (and a few chat abbreviations; the
first person of recall's ranking in Russian too)."""

from __future__ import annotations

import re

from memory.core.text import wordset

# Chat filler that makes a message look long without saying anything.
FILLER = wordset(
    """
    lol lmao lmfao rofl haha hahaha hehe xd xdd ok okay k kk yeah yea yep yes nope nah
    thanks thank thx ty np hi hello hey yo sup gg wp nice cool wow omg idk tbh ikr ngl
    hmm hm ah oh uh um yay welcome sure great good bad same true fr bruh
    """
)
FIRST_PERSON = frozenset({"i", "i'm", "im", "i've", "ive", "i'll", "my", "me", "we", "our"})
# The first person as recall ranks a member's own statements by it (their "I ..." and "my ..."
# say more about them), English and Russian, matched as whole words in SQL.
FIRST_PERSON_ANY = (
    *("i", "i'm", "im", "i've", "ive", "i'll", "i'd", "my", "me", "mine"),
    *("we", "we're", "our", "us"),
    *("я", "мой", "моя", "мое", "моё", "мои", "мне", "меня", "мы", "наш", "наша", "наши"),
)
# Openers of greetings, thanks and reactions: the sentence is social, not news.
SOCIAL_OPENER = re.compile(
    r"^\W*(?:hey|hi|hello|heya|hiya|yo|morning|good (?:morning|night|evening|afternoon)|gm|gn"
    r"|thanks|thank you|thx|ty|congrats|congratulations|lol|lmao|haha\w*|omg|wow|aww+|nice"
    r"|cool|same|true|ok|okay|sure|yeah|yep|nope|no worries|welcome|bye|see (?:you|ya)|cya"
    r"|(?:it'?s |so )?(?:great|good|nice) to (?:see|hear|meet)|how (?:are|r) (?:you|u)"
    r"|how'?s it going|what'?s up|long time)\b",
    re.IGNORECASE,
)
# Words by which a reply speaks to the member it answers; a reply without them (nor their
# name) is its author's news, already in the author's own note, not news about the member.
ADDRESSING = wordset(
    """
    you your you're youre yours yourself you've you'll u ur congrats congratulations
    """
)
# A line that makes a plan ("let's", "we'll", "tomorrow"): a loop an episode leaves open.
_PLAN = re.compile(r"\b(let's|lets|we'll|we will|i'll|i will|going to|plan|tomorrow)\b", re.I)


def makes_plan(text: str) -> bool:
    return _PLAN.search(text) is not None


# Words of a question that say what kind of answer it wants, not what it is about.
QUESTION_WORDS = wordset(
    "what when where who whom why how which many much times ever remember know bot"
)
