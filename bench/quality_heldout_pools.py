"""The words of the held-out quality chats (bench/quality_heldout.py): other people, other topics,
other phrasings than bench/quality_pools.py, and lines that share a question's words without
answering it. Nothing in memory/ or db/ may name any of these (tests/bench/test_quality_heldout.py
checks): they judge whether retrieval generalises, so nothing may be tuned to them.
"""

from __future__ import annotations

NAMES = ("Bea", "Kofi", "Sven", "Marta", "Jonah", "Aiko", "Ravi", "Noor")

FILMS = ("Paddington", "Amelie", "Jaws", "Casablanca", "Gattaca", "Ponyo", "Rocky", "Fargo")
BOOKS = ("Middlemarch", "Dune", "Rebecca", "Beloved", "Ulysses", "Emma", "Solaris", "Kindred")
SISTERS = ("Wanda", "Greta", "Olga", "Tilda", "Rosa", "Hilde", "Petra", "Zora")
TEAMS = ("Arsenal", "Celtic", "Benfica", "Ajax", "Napoli", "Sevilla", "Feyenoord", "Lazio")
LANGUAGES = (
    "Portuguese",
    "Welsh",
    "Swahili",
    "Hungarian",
    "Icelandic",
    "Tagalog",
    "Estonian",
    "Basque",
)
DRINKS = ("cortado", "flat white", "chai latte", "macchiato", "mocha", "americano", "matcha")
CITIES = ("Reykjavik", "Montreal", "Auckland", "Santiago", "Bilbao", "Gdansk", "Zurich", "Quito")
GIFTS = ("sewing machine", "drone", "hammock", "espresso grinder", "kayak paddle", "record player")
PLACES = ("Sardinia", "Crete", "Madeira", "Corsica", "Sicily", "Mallorca", "Gozo", "Rhodes")
VEG = ("courgettes", "beetroot", "runner beans", "spinach", "radishes", "leeks", "pumpkins")
KITTENS = ("Marmalade", "Sprocket", "Bramble", "Nimbus", "Pretzel", "Widget", "Tofu", "Gizmo")

# Things a member did on a day: (first-person past, question phrase).
EVENTS = (
    ("repainted the hallway a dark green", "repaint the hallway"),
    ("climbed Ben Nevis with my cousin", "climb Ben Nevis"),
    ("got my braces off", "get the braces off"),
    ("sold the old sofa on the marketplace", "sell the old sofa"),
    ("watched the eclipse from the roof", "watch the eclipse"),
    ("baked my first sourdough loaf", "bake a sourdough loaf"),
    ("won the pub quiz with the neighbours", "win the pub quiz"),
    ("volunteered at the food bank", "volunteer at the food bank"),
    ("gave a talk at the library about beekeeping", "give the library talk"),
    ("swam across the lake for charity", "swim across the lake"),
)
# Dated occasions said ahead: (noun phrase, question phrase).
OCCASIONS = (
    ("the street party", "the street party"),
    ("my graduation ceremony", "{name}'s graduation ceremony"),
    ("the charity bake sale", "the charity bake sale"),
    ("our housewarming", "{name}'s housewarming"),
)

# Never said by anyone.
NEVER = (
    ("What did {name} think of the rodeo?", "rodeo"),
    ("Which harpsichord does {name} play?", "harpsichord"),
    ("When did {name} sleep in an igloo?", "igloo"),
    ("What is the name of {name}'s catamaran?", "catamaran"),
    ("Where did {name} buy the trampoline?", "trampoline"),
    ("When did {name} see the zeppelin?", "zeppelin"),
    ("What did {name} say about the glacier hike?", "glacier"),
    ("Which mosque did {name} visit in Istanbul?", "istanbul"),
    ("When did {name} go paragliding?", "paragliding"),
    ("What did {name} say about the flamenco class?", "flamenco"),
    ("Which lighthouse did {name} paint?", "lighthouse"),
    ("What is {name}'s favourite cocktail?", "cocktail"),
)

# Chatter: longer and more varied than the tuned split's, none of the answer words.
FILLER = (
    "ok that made me laugh more than it should have",
    "honestly I can't keep my eyes open today",
    "did anyone else get soaked on the way home?",
    "my landlord still hasn't fixed the boiler",
    "I keep forgetting to reply to emails",
    "that's fair, I'd have done the same",
    "what time is it there?",
    "the bus was forty minutes late again",
    "I'm making soup tonight, it's that kind of day",
    "wait, which one do you mean?",
    "no worries at all",
    "I think I left my charger at work",
    "same, it's been a long one",
    "that sounds exhausting",
    "ha, classic",
    "I need a holiday from my holiday",
    "give me five minutes",
    "not gonna lie, I napped",
    "it's so quiet in here today",
    "anyway, how are things with you?",
    "can't complain really",
    "the wifi keeps dropping",
    "I'm trying to drink more water",
    "you're not wrong",
    "mood",
    "let me know how it goes",
    "oh no, that's annoying",
    "all good here, busy week",
)
# Lines that share a question's words but answer nothing (what a real chat is full of).
DISTRACTORS = (
    "the cinema near me is closing down, so sad",
    "my sister keeps sending me memes at 3am",
    "the café on the corner has terrible wifi",
    "reading on the train makes me sick",
    "football on tv all weekend again",
    "my brother never answers his phone",
    "I should learn a language one day",
    "the weekend went by way too fast",
    "who even has time for a veg patch",
    "birthdays at work are so awkward",
    "the kitten next door sits on our car",
    "honeymoon photos all over my feed this week",
)
