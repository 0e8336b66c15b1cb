"""Irregular English verb forms: "where did Sam grow up?" must find "I grew up by the sea".

Full-text search matches words (and long words by prefix); no stemmer maps "grew" to "grow".
A question's irregular verb brings its other forms along as search words (each weighted by its
own rarity, like any word), so past-tense answers to present-tense questions are found.
"""

from __future__ import annotations

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
