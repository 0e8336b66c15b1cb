"""The words a search leaves out and the forms it adds, in the languages the bot reads.

A question's words are searched by rarity, but some words carry the question and not its
subject ("what", "did", "remember", "кто"): each would take one of the few search terms and
widen the rows scored. A message made only of small talk ("hey thanks!") is not searched at
all. Full-text search matches words (and long words by prefix), and no stemmer maps "grew" to
"grow": a question's irregular verb brings its other forms ("where did Sam grow up?" finds
"I grew up by the sea").
"""

from __future__ import annotations

from memory.core.text import wordset

# Words that carry the question, not its subject (English and Russian; other languages pass
# through). They would weigh little by rarity anyway, but each would take one of the search's few
# places and widen the candidate rows.
_RUSSIAN = wordset(
    """
    и а но или да нет не ни же ли бы вот ну в во на с со к ко по о об обо от до из за у для
    про при под над без через после перед между это этот эта эти то тот та те что чего как
    какой какая какие кто кого где куда когда зачем почему сколько я меня мне мой моя мы нас
    наш ты тебя твой вы вас ваш он его ему она её ее они их им был была было были быть есть
    будет уже ещё еще тоже также только очень так там тут здесь сказал сказала сказали говорил
    говорила говорили знаешь помнишь бот пожалуйста расскажи скажи
    """
)
SEARCH_STOP_WORDS = _RUSSIAN | frozenset(
    {
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "from",
        "with",
        "about",
        "into",
        "over",
        "after",
        "before",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "done",
        "have",
        "has",
        "had",
        "having",
        "will",
        "would",
        "shall",
        "should",
        "can",
        "could",
        "may",
        "might",
        "must",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "he",
        "him",
        "his",
        "she",
        "her",
        "it",
        "its",
        "they",
        "them",
        "their",
        "this",
        "that",
        "these",
        "those",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "there",
        "here",
        "any",
        "some",
        "all",
        "no",
        "not",
        "yes",
        "so",
        "very",
        "just",
        "also",
        "too",
        "then",
        "than",
        "as",
        "up",
        "down",
        "out",
        "off",
        "again",
        "ever",
        "say",
        "said",
        "says",
        "tell",
        "told",
        "know",
        "knew",
        "remember",
        "recall",
        "bot",
        "please",
        "go",
        "went",
        "gone",
        "going",
        "get",
        "got",
        # A light verb, like go and get: with a particle it says how, not what ("take up").
        "take",
        "takes",
        "taking",
        "took",
        "taken",
        "one",
        "ones",
        "thing",
        "things",
        "time",
    }
)

# A message made only of these (and stop words) greets or thanks: nothing to search for.
SMALL_TALK = wordset(
    """
    hi hello hey heya hiya yo sup howdy hola thanks thank thx ty cheers bye goodbye night
    morning evening afternoon good ok okay lol lmao haha hah nice cool great awesome welcome
    sorry np gn gm cya later nope yep yeah yup sure how are doing whats up fine well much lot
    everyone guys folks friend buddy man dude
    привет спасибо пока ок хорошо
    """
)

_GROUPS = """
    be was were been | begin began begun | break broke broken | bring brought | build built
    buy bought | catch caught | choose chose chosen | come came | do did done | draw drew drawn
    drink drank drunk | drive drove driven | eat ate eaten | fall fell fallen | feel felt
    fight fought | find found | fly flew flown | forget forgot forgotten | get got gotten
    give gave given | go went gone | grow grew grown | hear heard | hold held | keep kept
    know knew known | leave left | lend lent | lose lost | make made | meet met | pay paid
    ride rode ridden | ring rang rung | run ran | say said | see saw seen | sell sold | send sent
    sing sang sung | sit sat | sleep slept | speak spoke spoken | spend spent | stand stood
    steal stole stolen | swim swam swum | take took taken | teach taught | tell told
    think thought | throw threw thrown | understand understood | wake woke woken | wear wore worn
    win won | write wrote written
"""

FORMS: dict[str, tuple[str, ...]] = {}
for _group in _GROUPS.split("|"):
    _words = tuple(_group.split())
    for _word in _words:
        FORMS[_word] = tuple(w for w in _words if w != _word)


def other_forms(word: str) -> tuple[str, ...]:
    """The other forms of an irregular verb (none for any other word)."""
    return FORMS.get(word, ())


# Regular inflections a search also reads as their stem, longest first.
_SIBILANT_ENDINGS = ("ss", "sh", "ch", "x", "z")
_STEM_LETTERS = 4
# Words that look inflected and are not: their "stem" is another word ("even").
_NOT_INFLECTED = frozenset({"evening", "evenings"})


def regular_stem(word: str) -> str | None:
    """The stem a regular English inflection leaves, for a search to match as a prefix:
    "camped", "camping" and "camps" all find "camp", "activities" finds "activity" and
    "loved" finds "loves" through "love". None when the word is not so inflected or its stem
    would be too short to stand as a prefix (fewer than four letters)."""
    if len(word) < 5 or not word.isalpha() or word in _NOT_INFLECTED:
        return None
    stem = _strip(word)
    if stem is None or len(stem) < _STEM_LETTERS:
        return None
    return stem


def _strip(word: str) -> str | None:
    if word.endswith("ies"):
        return word[:-3]
    if word.endswith(("ing", "ed")):
        stem = word[:-3] if word.endswith("ing") else word[:-2]
        if len(stem) >= 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
            return stem[:-1]  # "swimming", "stopped"
        if len(stem) < _STEM_LETTERS and word.endswith("ed"):
            return word[:-1]  # "moved": "move"
        return stem
    if word.endswith("es") and word[:-2].endswith(_SIBILANT_ENDINGS):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return None
