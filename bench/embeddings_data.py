"""A small check of recall by meaning: a question, the message that answers it in other words,
and a distractor that shares the question's words but not its meaning (the member's name, or a
word used in another sense), as chat has them. Written for this bench, not taken from a data
set; `answer_beats_distractor` and `answer_in_top5` (among every answer and distractor) are
computed over it."""

from __future__ import annotations

TRIPLES: tuple[tuple[str, str, str], ...] = (
    (
        "what music does Ana play?",
        "I've been practising the cello for my recital",
        "Ana said the play at school was boring",
    ),
    (
        "where did Ben go on holiday?",
        "we just got back from two weeks in Portugal, beaches were great",
        "Ben is going to holiday shopping tomorrow",
    ),
    (
        "does Carla have any pets?",
        "my dog chewed my shoes again this morning",
        "Carla pets are not allowed in the office, says the memo",
    ),
    (
        "what sport does Dan like?",
        "Dan plays football every Sunday with his mates",
        "I like the sport section of the newspaper",
    ),
    (
        "what is Eve's job?",
        "I work as a nurse at the city hospital",
        "Eve did a good job on the painting",
    ),
    (
        "what books has Finn read?",
        "just finished Dune, now starting The Hobbit",
        "Finn booked the table for tonight",
    ),
    (
        "is Gina married?",
        "my husband and I celebrated our anniversary yesterday",
        "Gina asked if the marriage certificate office was open",
    ),
    (
        "what car does Hugo drive?",
        "my new Tesla charges overnight in the garage",
        "Hugo's car park ticket expired",
    ),
    (
        "where does Ivy live?",
        "our flat in Berlin has a tiny balcony",
        "Ivy will stream the concert live tonight",
    ),
    (
        "what food does Jack cook?",
        "made lasagna and garlic bread for dinner",
        "Jack said the food court was closed",
    ),
    (
        "has Kim been ill?",
        "I've had the flu all week, fever and everything",
        "Kim said the ill-fitting jacket goes back",
    ),
    (
        "what instrument is Leo learning?",
        "Leo started guitar lessons last month",
        "the instrument panel in Leo's car broke",
    ),
    (
        "when is Mia's birthday?",
        "I'm turning thirty on the 14th of March",
        "Mia bought a birthday card for her aunt",
    ),
    (
        "what language is Nate studying?",
        "Nate practices his Japanese kanji every evening",
        "the language of the contract confused Nate",
    ),
    (
        "does Olga have kids?",
        "my son starts kindergarten next week",
        "Olga said the kids' menu was small",
    ),
    (
        "what does Paul do for fun?",
        "Paul goes rock climbing at the gym on weekends",
        "Paul said fun facts are his thing at work",
    ),
    (
        "where did Quinn study?",
        "graduated from Oxford in 2015",
        "Quinn needs a study desk for the new flat",
    ),
    (
        "what is Rosa afraid of?",
        "spiders terrify me, I can't even look at them",
        "Rosa is afraid the bus will be late",
    ),
    (
        "what games does Sam play?",
        "Sam has been grinding Elden Ring all weekend",
        "Sam said the football game was postponed",
    ),
    (
        "what did Tara eat for breakfast?",
        "had pancakes with maple syrup this morning",
        "Tara eats breakfast for dinner sometimes, she said",
    ),
    (
        "did Uma move house?",
        "finally unpacked the last boxes in our new apartment",
        "Uma said the house music was too loud",
    ),
    (
        "what is Victor allergic to?",
        "peanuts make my throat swell up",
        "Victor is allergic to mornings, he jokes",
    ),
    (
        "what pet does Wendy have?",
        "my cat sleeps on the keyboard all day",
        "Wendy's pet peeve is loud chewing",
    ),
    (
        "how did Xavier hurt himself?",
        "broke my wrist falling off a skateboard",
        "Xavier said the movie hurt his brain",
    ),
)
