"""The words the quality chats are made of (bench/quality_data.py), kept apart so the generator
reads as a plan. Pools are disjoint where a question depends on it: an answer word is said only
where it was planted, and a never-said term is never said at all (the generator checks).
"""

from __future__ import annotations

NAMES = (
    "Dana",
    "Robin",
    "Milo",
    "Priya",
    "Tomas",
    "Keiko",
    "Farah",
    "Gus",
    "Lena",
    "Omar",
    "Ines",
    "Yusuf",
)

# (animal, pet names): "my {animal} is called {name}".
ANIMALS = (
    "dog",
    "cat",
    "rabbit",
    "parrot",
    "hamster",
    "tortoise",
    "ferret",
    "gecko",
    "hedgehog",
    "chinchilla",
    "budgie",
    "axolotl",
)
PET_NAMES = (
    "Biscuit",
    "Pixel",
    "Mango",
    "Noodle",
    "Pepper",
    "Waffles",
    "Ziggy",
    "Clementine",
    "Domino",
    "Truffle",
    "Juniper",
    "Pickles",
)
JOBS = (
    "pharmacist",
    "carpenter",
    "paramedic",
    "librarian",
    "translator",
    "electrician",
    "architect",
    "baker",
    "surveyor",
    "dietitian",
)
TOWNS = (
    "Tartu",
    "Bergamo",
    "Galway",
    "Ljubljana",
    "Aarhus",
    "Coimbra",
    "Valparaiso",
    "Hobart",
    "Nantes",
    "Kraków",
)
INSTRUMENTS = ("cello", "banjo", "harmonica", "ukulele", "trombone", "clarinet", "accordion")
DISHES = ("ramen", "paella", "pierogi", "lasagna", "falafel", "dumplings", "risotto", "tacos")
ALLERGENS = ("peanuts", "shellfish", "pollen", "sesame", "penicillin", "kiwi", "latex")
CARS = (
    "Subaru",
    "Volvo",
    "Skoda",
    "Mazda",
    "Toyota",
    "Hyundai",
    "Renault",
    "Fiat",
    "Kia",
    "Peugeot",
    "Nissan",
    "Suzuki",
    "Citroen",
    "Honda",
)
TRIPS = (
    "Lisbon",
    "Oslo",
    "Kyoto",
    "Porto",
    "Vienna",
    "Seville",
    "Bruges",
    "Tallinn",
    "Naples",
    "Dubrovnik",
    "Edinburgh",
    "Marrakesh",
    "Helsinki",
    "Salzburg",
)
HOBBIES = (
    "pottery",
    "bouldering",
    "archery",
    "fencing",
    "kayaking",
    "calligraphy",
    "woodcarving",
    "birdwatching",
    "beekeeping",
    "origami",
    "juggling",
    "embroidery",
    "rowing",
    "sculpting",
    "foraging",
    "glassblowing",
)

# Events a member tells about: (first-person past, question phrase, key noun).
EVENTS = (
    ("took the kids to the museum", "go to the museum"),
    ("ran my first half marathon", "run a half marathon"),
    ("had my wisdom tooth pulled at the dentist", "get a wisdom tooth pulled"),
    ("saw the fireworks down at the harbour", "see the fireworks at the harbour"),
    ("had the job interview at the observatory", "have a job interview at the observatory"),
    ("moved into the new flat above the bakery", "move into the flat above the bakery"),
    ("went to the planetarium with my cousins", "go to the planetarium"),
    ("finally passed my driving test", "pass the driving test"),
    ("got the keys to the allotment garden", "get the allotment garden"),
    ("went to the aquarium for my niece's birthday", "go to the aquarium"),
    ("played in the chess tournament at the library", "play in the chess tournament"),
    ("hosted the karaoke night at the pub", "host the karaoke night"),
)
# Future appointments said with an absolute date: (noun phrase, question phrase).
APPOINTMENTS = (
    ("my dissertation defence", "is {name}'s dissertation defence"),
    ("the glass art exhibition opening", "is the glass art exhibition {name} mentioned"),
    ("my sister's wedding", "is {name}'s sister's wedding"),
    ("the dragon boat race", "is the dragon boat race {name} is in"),
)

# Never said by anyone: what never-said questions ask about.
NEVER_TOPICS = (
    ("What did {name} say about the sailing trip?", "sailing"),
    ("What is the name of {name}'s horse?", "horse"),
    ("When did {name} go to Iceland?", "iceland"),
    ("Which violin teacher does {name} go to?", "violin"),
    ("What did {name} think of skydiving?", "skydiving"),
    ("When did {name} win the lottery?", "lottery"),
    ("What tattoo did {name} get?", "tattoo"),
    ("Which vineyard did {name} visit?", "vineyard"),
    ("What did {name} say about the submarine tour?", "submarine"),
    ("When did {name} start the snooker league?", "snooker"),
    ("What is {name}'s favourite opera?", "opera"),
    ("Where did {name} buy the telescope?", "telescope"),
)

# Chatter with none of the words above.
FILLER = (
    "lol",
    "haha that's wild",
    "how was your day?",
    "pretty tired today, long week",
    "anyone watching the game tonight?",
    "I need coffee",
    "same here",
    "ok talk later",
    "did you see the weather?",
    "so much rain this week",
    "what are you up to this weekend?",
    "nothing much, just relaxing",
    "that's so funny",
    "ugh mondays",
    "yeah I know right",
    "brb",
    "back",
    "sounds good to me",
    "no idea honestly",
    "that makes sense",
    "I'm starving",
    "work was chaos again",
    "can't believe it's already this late",
    "good morning everyone",
    "night all",
    "omg yes",
    "fair enough",
    "I'll think about it",
    "the traffic was terrible today",
    "watching a documentary right now",
    "my phone is almost dead",
    "just finished cleaning the kitchen",
    "this playlist is great",
    "hmm not sure",
    "agreed",
    "wait really?",
    "that's a relief",
    "I should sleep more",
    "lunch was decent today",
    "the neighbours are so loud",
)
GREETINGS = ("hey {other}!", "hi {other}, how's it going?", "{other} you around?", "hey hey")
