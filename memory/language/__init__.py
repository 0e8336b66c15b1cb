"""The language the memory reads and writes, in one place.

What is English (and Russian) about the product lives here and nowhere else in these modules:
recognising memory commands and their targets (`_intent`), turning a member's first-person
statement into the third person (`_third_person`), telling a plain statement from a joke, a
quote or a hypothetical (`_statements`), which words carry meaning and whether a sentence
restates a statement (`_meaning`), whether two facts make the same or contradicting claims
(`_claims`), which new name an identity statement gives (`_identity`), the words a search
leaves out and the verb forms it adds (`_search_words`), the register of chat (`_chat`:
filler, greetings, the first person, plans), dates and days in words (`_dates`, `_asked`:
"last Friday", "on March 31", "6 марта"), and reading durable facts and news from chat by its
grammar (`_learner`, `_news`, with the closed word classes of English in `_english`). A second
language would sit beside these modules behind the same functions.
"""

from memory.language._asked import (
    asked_channel,
    asked_channel_name,
    asked_day,
    asks_catch_up,
    written_date,
)
from memory.language._chat import (
    ADDRESSING,
    FILLER,
    FIRST_PERSON,
    FIRST_PERSON_ANY,
    QUESTION_WORDS,
    SOCIAL_OPENER,
    makes_plan,
)
from memory.language._claims import contradicts, same_claim
from memory.language._dates import day_label, resolve_dates, without_dates
from memory.language._identity import identity_alias
from memory.language._intent import (
    CommandKind,
    ParsedCommand,
    Prefilter,
    addressed_text,
    asks_the_bot_only,
    asks_what_was_talked_about,
    asks_who_is,
    is_forget_command,
    is_memory_command,
    is_self_reference,
    mention_id,
    prefilter,
    subject_candidates,
)
from memory.language._learned import Learned
from memory.language._learner import durable_statements
from memory.language._meaning import (
    content_tokens,
    content_words,
    drop_restating,
    jaccard,
    restates,
    restates_any,
    without_names,
)
from memory.language._news import PersonalNews, asks_what_is_new, is_news, personal_news
from memory.language._period import asked_period
from memory.language._places import asks_for_places, names_a_place, place_pattern
from memory.language._search_words import (
    SEARCH_STOP_WORDS,
    SMALL_TALK,
    other_forms,
    regular_stem,
)
from memory.language._statements import clean_value, is_clean_fact, own_statements
from memory.language._third_person import conjugate, starts_in_first_person, third_person

__all__ = [
    "ADDRESSING",
    "FILLER",
    "FIRST_PERSON",
    "FIRST_PERSON_ANY",
    "QUESTION_WORDS",
    "SEARCH_STOP_WORDS",
    "SMALL_TALK",
    "SOCIAL_OPENER",
    "CommandKind",
    "Learned",
    "ParsedCommand",
    "PersonalNews",
    "Prefilter",
    "addressed_text",
    "asked_channel",
    "asked_channel_name",
    "asked_day",
    "asked_period",
    "asks_catch_up",
    "asks_for_places",
    "asks_the_bot_only",
    "asks_what_is_new",
    "asks_what_was_talked_about",
    "asks_who_is",
    "clean_value",
    "conjugate",
    "content_tokens",
    "content_words",
    "contradicts",
    "day_label",
    "drop_restating",
    "durable_statements",
    "identity_alias",
    "is_clean_fact",
    "is_forget_command",
    "is_memory_command",
    "is_news",
    "is_self_reference",
    "jaccard",
    "makes_plan",
    "mention_id",
    "names_a_place",
    "other_forms",
    "own_statements",
    "personal_news",
    "place_pattern",
    "prefilter",
    "regular_stem",
    "resolve_dates",
    "restates",
    "restates_any",
    "same_claim",
    "starts_in_first_person",
    "subject_candidates",
    "third_person",
    "without_dates",
    "without_names",
    "written_date",
]
