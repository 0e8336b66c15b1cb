"""Labelled chat lines for the fact learner, written from templates of their own.

None of these shapes or words come from the quality bench (bench/quality_*): jobs,
instruments, places and hobbies are deliberately unusual (a beekeeper, the theremin, Tbilisi)
so a learner that knew a list of common ones would miss them. Each line is labelled with what
a careful reader learns about its speaker: first-person statements that last, and nothing from
third-person news, quotes, hypotheticals, jokes, questions, moods or events of the day.
"""

from __future__ import annotations

from itertools import cycle, islice

SPEAKERS = ("Wren", "Odile", "Kofi", "Tamsin", "Ilya", "Marisol")
JOBS = (
    "a beekeeper",
    "an actuary",
    "a welder",
    "a sommelier",
    "a court stenographer",
    "a glassblower",
    "a zookeeper",
    "a locksmith",
    "a luthier",
    "an air traffic controller",
)
INSTRUMENTS = ("oboe", "accordion", "banjo", "theremin", "mandolin", "bagpipes", "harp")
CITIES = ("Tbilisi", "Winnipeg", "Ghent", "Valparaíso", "Tromsø", "Hobart", "Cusco", "Da Nang")
ORGS = ("Maersk", "Siemens", "the Royal Mint", "Nokia", "the city archive", "Lufthansa")
HOBBIES = ("bouldering", "fencing", "birdwatching", "woodturning", "geocaching", "curling")
HABITS = ("knit", "swim", "cycle", "meditate", "garden", "bake")
TIMES = ("every evening", "on Sundays", "before work", "every morning", "at the weekend")
THINGS = ("sourdough", "jazz fusion", "cold brew", "crosswords", "horror films", "board games")
ALLERGIES = ("latex", "hazelnuts", "bee stings", "ibuprofen", "kiwi", "horses")
FEARS = ("heights", "deep water", "spiders", "clowns")
LANGUAGES = (("Georgian", "Dutch"), ("Tagalog", "Spanish"), ("Welsh", "Basque"), ("Farsi", "Urdu"))
PETS = ("ferret", "tortoise", "cockatoo", "greyhound", "axolotl")
PET_NAMES = ("Noodle", "Pickles", "Bramble", "Ziggy", "Olive")
RELATIVES = ("stepbrother", "grandma", "cousin", "aunt", "twin sister", "godson")
RELATIVE_NAMES = ("Anouk", "Tariq", "Beatriz", "Soren", "Ngozi", "Lev")
DOINGS = ("is coming over later", "just got engaged", "started a new job", "is visiting")
FIELDS = ("marine biology", "medieval history", "accounting", "linguistics")
NATIONALITIES = ("Brazilian", "Japanese", "Irish", "Korean", "Nigerian")
OTHERS = ("Priyanka", "Benedikt", "Yusuf", "Hollis")
MOODS = ("exhausted", "starving", "bored", "so sleepy", "kinda sad")
FOODS = ("ramen", "a burrito", "leftover curry", "pancakes")

Line = tuple[str, str, list[str]]


def _take(pool: tuple[str, ...], count: int, start: int) -> list[str]:
    return list(islice(cycle(pool), start, start + count))


def _durable(n: str, i: int) -> list[tuple[str, str]]:
    """(line, fact) pairs: lasting first-person statements, one per template."""
    job, job2 = _take(JOBS, 2, i)
    city, city2 = _take(CITIES, 2, i)
    instrument = INSTRUMENTS[i % len(INSTRUMENTS)]
    hobby, habit, time = HOBBIES[i % 6], HABITS[i % 6], TIMES[i % 5]
    thing, allergy, fear = THINGS[i % 6], ALLERGIES[i % 6], FEARS[i % 4]
    lang, lang2 = LANGUAGES[i % 4]
    pet, pet_name = PETS[i % 5], PET_NAMES[i % 5]
    field, nationality, org = FIELDS[i % 4], NATIONALITIES[i % 5], ORGS[i % 6]
    return [
        (f"I work as {job} at {org}", f"{n} works as {job}"),
        (f"I'm {job2}", f"{n} is {job2}"),
        (f"I live in {city}", f"{n} lives in {city}"),
        (f"I moved to {city2} a while ago", f"{n} lives in {city2}"),
        (f"I grew up in {city2}", f"{n} grew up in {city2}"),
        (f"I'm from {city} originally", f"{n} is from {city}"),
        (f"I play the {instrument} in a folk band", f"{n} plays the {instrument}"),
        (f"I {habit} {time}", f"{n} {habit}s {time}"),
        (f"I go {hobby} most weekends", f"{n} goes {hobby}"),
        (f"I really enjoy {thing}", f"{n} enjoys {thing}"),
        (f"I'm allergic to {allergy}", f"{n} is allergic to {allergy}"),
        (f"I'm terrified of {fear}", f"{n} is terrified of {fear}"),
        (f"I speak {lang} and {lang2}", f"{n} speaks {lang} and {lang2}"),
        (f"I have a {pet} named {pet_name}", f"{n} has a {pet} called {pet_name}"),
        (
            f"I've been learning the {instrument} for two years",
            f"{n} has been learning the {instrument}",
        ),
        (f"I've taken up {hobby}", f"{n} has taken up {hobby}"),
        (f"I studied {field} at uni", f"{n} studied {field}"),
        (f"I'm {nationality}", f"{n} is {nationality}"),
        (f"I was born in {city}", f"{n} was born in {city}"),
        (f"I don't eat {THINGS[(i + 2) % 6]}", f"{n} doesn't eat {THINGS[(i + 2) % 6]}"),
        (
            f"my favourite season is {('autumn', 'winter', 'spring')[i % 3]}",
            f"{n}'s favorite season is {('autumn', 'winter', 'spring')[i % 3]}",
        ),
    ]


def _first_person(n: str, i: int) -> list[Line]:
    lines: list[Line] = []
    leads = ("", "oh btw ", "fun fact: ", "update: ", "honestly ", "ok so ")
    for j, (line, fact) in enumerate(_durable(n, i)):
        lead = leads[(i + j) % len(leads)]
        lines.append((n, lead + line, [fact]))
    return lines


def _multi_clause(n: str, i: int) -> list[Line]:
    """A lasting statement beside an event, a mood or a second lasting statement."""
    durable = _durable(n, i + 3)
    (a, fa), (b, fb), (c, fc) = durable[i % 7], durable[7 + i % 7], durable[14 + i % 7]
    relative, who, doing = RELATIVES[i % 6], RELATIVE_NAMES[i % 6], DOINGS[i % 4]
    mood, food = MOODS[i % 5], FOODS[i % 4]
    return [
        (n, f"{a}, and the weather is awful today", [fa]),
        (n, f"{b} but I'm {mood} today", [fb]),
        (n, f"had {food} for lunch, btw {c}", [fc]),
        (n, f"{a} and my {relative} {who} {doing}", [fa, f"{n}'s {relative} is called {who}"]),
        (n, f"my {relative} {who} {doing}", [f"{n}'s {relative} is called {who}"]),
        (n, f"{b}; {c}", [fb, fc]),
    ]


def _nothing(n: str, i: int) -> list[Line]:
    """Lines a careful reader learns nothing about the speaker from."""
    job, city, instrument = JOBS[i % 10], CITIES[i % 8], INSTRUMENTS[i % 7]
    other, relative, hobby = OTHERS[i % 4], RELATIVES[i % 6], HOBBIES[i % 6]
    mood, food, thing = MOODS[i % 5], FOODS[i % 4], THINGS[i % 6]
    lines = [
        f"my {relative} works as {job}",
        f"{other} lives in {city}",
        f"she's {job}",
        f"he plays the {instrument}",
        f'{other} said "I moved to {city}"',
        f"my {relative} told me she's allergic to {ALLERGIES[i % 6]}",
        f"if I lived in {city} I'd never leave",
        f"I'd love to live in {city} someday",
        f"I wish I could play the {instrument}",
        f"maybe I'll take up {hobby}",
        f"I'm thinking of moving to {city}",
        f"I want to learn {LANGUAGES[i % 4][0]}",
        f"I'm basically {job} at this point lol",
        "I live at the office haha",
        f"do you play the {instrument}?",
        f"are you from {city}?",
        f"I went to {city} last weekend",
        f"I'm eating {food} right now",
        "I'm at the dentist right now",
        f"I'm {mood}",
        f"I'm so {mood} today",
        f"I think {city} is overrated",
        "I love this song",
        "I hate when people do that",
        f"I like your {thing} idea",
        "good morning everyone",
        "thanks, that helps",
        "I just finished the report",
        "I'm stuck in traffic again",
        f"I need {thing} right now",
    ]
    return [(n, line, []) for line in lines]


def labelled_lines() -> list[Line]:
    """About 350 labelled lines: lasting statements, multi-clause ones, and non-facts."""
    lines: list[Line] = []
    for i, speaker in enumerate(SPEAKERS):
        lines.extend(_first_person(speaker, i))
        lines.extend(_multi_clause(speaker, i))
        if i % 2 == 0:
            lines.extend(_nothing(speaker, i))
    return lines
