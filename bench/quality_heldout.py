"""The quality bench's held-out split: templates and word pools nothing in `memory/` or `db/`
was written against (issue 34). Changes to retrieval are judged here; the tuned split
(bench/quality_plan.py) only has to stay where it is.

What differs from the tuned split, as in chats nobody here wrote:
- facts come as exchanges: another member asks, the subject answers in the next turn with
  words of their own ("what's your go-to board game?" / "Carcassonne, every time"), so the
  question's words sit in the turn before the answer;
- "when" questions are asked about by the other speaker first, answered with a relative date;
- `two_messages`: an answer spread over two of the subject's messages around a question of
  someone else's ("we adopted two kittens" / "what are they called?" / "Pixel and Mochi");
- other topics and phrasings for what was never said.
"""

from __future__ import annotations

from bench.quality_plan import Planner, date_words

TWO_KIND = "two_messages"

GAMES = ("Carcassonne", "Azul", "Wingspan", "Catan", "Dixit", "Splendor", "Patchwork", "Ticket")
GAME_ANSWERS = ("{}, every time", "has to be {} honestly", "{}, no contest", "{} for sure")
SNACKS = ("pretzels", "edamame", "popcorn", "nachos", "mochi", "churros", "samosas", "biltong")
TEAMS = ("Arsenal", "Celtic", "Benfica", "Ajax", "Napoli", "Sevilla", "Lyon", "Feyenoord")
SHOWS = ("Severance", "Fleabag", "Succession", "Shogun", "Dark", "Bluey", "Fargo", "Atlanta")
FACT_TOPICS = (  # (what the other asks, how the bench asks the bot, the pool)
    ("what's your go-to board game these days?", "What is {name}'s favourite board game?", GAMES),
    ("what do you snack on during movies?", "What does {name} snack on during movies?", SNACKS),
    ("which football team do you support?", "Which football team does {name} support?", TEAMS),
    ("what are you binge watching at the moment?", "What show is {name} watching?", SHOWS),
)
MILESTONES = (  # (the other's question, the subject's news, the bench's question)
    ("did you ever get your driving licence?", "passed the test", "get a driving licence"),
    ("how is the flat hunt going?", "signed the lease", "sign a lease for a flat"),
    ("are you still training for the triathlon?", "finished it", "finish the triathlon"),
    ("any news on the job interview?", "got the offer", "get the job offer"),
    ("did the pottery kiln ever arrive?", "it got delivered", "get the pottery kiln"),
    ("how did the citizenship thing go?", "took the oath", "take the citizenship oath"),
    ("did you ever finish that quilt?", "stitched the last square", "finish the quilt"),
    ("what happened with the broken boiler?", "the plumber fixed it", "get the boiler fixed"),
    ("did the new bike ever arrive?", "picked it up from the shop", "pick up the new bike"),
    ("how did the half term exams go?", "got the results", "get the exam results"),
)
LITTERS = (  # (what they got, how the bench names them, pairs of names)
    ("two kittens", "kittens", (("Pixel", "Mochi"), ("Tofu", "Miso"), ("Juniper", "Sage"))),
    (
        "a pair of budgies",
        "budgies",
        (("Clementine", "Biscotti"), ("Peep", "Squeak"), ("Blue", "Sunny")),
    ),
    ("two goldfish", "goldfish", (("Bubbles", "Gill"), ("Nemo", "Dory"), ("Goldie", "Flash"))),
    ("a couple of hens", "hens", (("Henrietta", "Nugget"), ("Clucky", "Peggy"), ("Rosie", "Ivy"))),
)
NEVER = (
    ("What did {name} say about the marathon in Boston?", "boston"),
    ("Which opera did {name} see?", "opera"),
    ("When did {name} go scuba diving?", "scuba"),
    ("What is {name}'s favourite cocktail?", "cocktail"),
    ("What did {name} say about the glacier hike?", "glacier"),
    ("Which podcast does {name} host?", "podcast"),
    ("When did {name} visit Patagonia?", "patagonia"),
    ("What did {name} think of the ballet?", "ballet"),
    ("Which chess club did {name} join?", "chess"),
    ("What did {name} say about the volcano?", "volcano"),
    ("When did {name} learn to surf?", "surf"),
    ("What is {name}'s sailing boat called?", "sailboat"),
)
HELD_OUT_PER_KIND = min(len(MILESTONES), sum(len(p) for _, _, p in LITTERS), len(NEVER))


class HeldOutPlanner(Planner):
    """The held-out templates, planted and asked the way the tuned Planner does."""

    def single_fact(self) -> None:
        name, where = self._subject("single_fact")
        asked, question, pool = self.rng.choice(FACT_TOPICS)
        answer = self._take(pool, f"held:{question}")
        said = self.rng.choice(GAME_ANSWERS).format(answer)
        at = self.rng.choice(where)
        other = self._asker(name)
        key = self.plant(at, other, asked, follow=((name, said),))
        self._ask("single_fact", name, question, [self.follow_key(key, 0)], answer=((answer,),))

    def when(self) -> None:
        name, where = self._subject("when")
        at = self.rng.choice(where)
        asked, news, question = self._take_milestone()
        day, when = self._relative(self.sessions[at].day)
        other = self._asker(name)
        key = self.plant(at, other, asked, follow=((name, f"yes, {news} {when}!"),))
        self._ask(
            "when",
            name,
            f"When did {{name}} {question}?",
            [self.follow_key(key, 0)],
            answer=(date_words(day),),
        )

    def _take_milestone(self) -> tuple[str, str, str]:
        used = self._used.setdefault("held:milestone", set())
        asked, news, question = self.rng.choice([m for m in MILESTONES if m[0] not in used])
        used.add(asked)
        return asked, news, question

    def across_sessions(self) -> None:
        """The held-out split's third kind: an answer over two messages of the subject's."""
        name, where = self._subject(TWO_KIND)
        at = self.rng.choice(where)
        used = self._used.setdefault("held:litter", set())
        left = [(got, noun, pair) for got, noun, pairs in LITTERS for pair in pairs]
        got, noun, (first, second) = self.rng.choice([x for x in left if x[2] not in used])
        used.add((first, second))
        other = self._asker(name)
        key = self.plant(
            at,
            name,
            f"big news, we adopted {got} last weekend",
            follow=((other, "aww what are they called?"), (name, f"{first} and {second}")),
        )
        self._ask(
            TWO_KIND,
            name,
            f"What are the names of {{name}}'s {noun}?",
            [key, self.follow_key(key, 1)],
            answer=((first,), (second,)),
        )

    def never_said(self) -> None:
        name, _ = self._subject("never_said")
        used = self._used.setdefault("held:never", set())
        text, term = self.rng.choice([t for t in NEVER if t[1] not in used])
        used.add(term)
        self._ask("never_said", name, text, [], absent=(term,))
