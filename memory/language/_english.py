"""The closed word classes of English the fact learner reads grammar with.

Only function words and grammar live here: pronouns, determiners, prepositions, auxiliaries,
adverbs of time and frequency, verbs of thinking and saying, the few verbs whose past tense
leaves a lasting state ("moved", "grew up"). No open-class lists (no jobs, foods, places,
instruments, hobbies): what a member does, likes or is comes from their own words.
"""

from __future__ import annotations

from memory.core.text import wordset

# Said before a statement without changing it: "oh, I moved to Paraty", "btw I'm a nurse".
INTERJECTIONS = wordset(
    """
    oh ah well yeah yes yep so btw actually also and but honestly ok okay anyway fyi hey hi
    hello omg wow update news alright hmm um
    """
)
LEAD_PHRASES = (
    "fun fact",
    "guess what",
    "big news",
    "good news",
    "for the record",
    "as for me",
    "as for myself",
    "same here",
    "me too",
    "personally",
    "on another note",
    "speaking of which",
)
# Adverbs between "I" and the verb that do not change what is stated: "I really love".
SOFT_ADVERBS = wordset(
    """
    really also still usually always often sometimes actually mostly just finally recently
    currently now originally absolutely totally truly genuinely definitely seriously
    generally normally mainly literally basically officially
    """
)
# Adverbs that make a statement negative: not learned (a careful reader asks again).
NEGATIONS = wordset(
    """
    not never don't dont didn't didnt can't cant cannot won't wont no hardly barely rarely
    doesn't isn't aren't wasn't weren't haven't hasn't ain't
    """
)
# Auxiliaries and modals: "I can", "I will", "I should" state no fact of the speaker.
MODALS = wordset("can could will would shall should may might must 'd 'll d ll")
# Verbs of thinking, saying, wanting, perceiving and advising: their object is a thought, or
# advice to the listener ("I recommend the ramen"), not a fact of the speaker.
MENTAL_VERBS = wordset(
    """
    think thought guess mean meant know knew see saw agree hope need want feel felt bet wonder
    suppose believe doubt remember forget understand wish miss promise swear care mind say
    said tell told thank thanks get got ask asked reckon assume expect imagine figure hear
    heard notice noticed realize realise regret appreciate apologize apologise admit
    try tried let recommend suggest advise
    """
)
# Past tenses that leave a lasting state: the learner says the state ("moved to Porto" -> lives
# in Porto), or the past where it names one ("joined a choir", "started fencing").
LASTING_PAST = wordset(
    "moved relocated grew was graduated studied adopted joined signed started began opened"
    " launched founded"
)
# What one opens, launches, founds or starts that lasts past the day: "I opened a bakery",
# "I launched a podcast" (not "I opened a can", "I started a fight"; "I started a new job" is
# news of the day, as the learner's labels have it).
FOUNDED = wordset(
    """
    business company shop store bakery restaurant cafe café studio startup podcast blog
    channel band club nonprofit foundation brand label agency practice clinic salon
    gym school newsletter firm boutique stall farm garden
    """
)
# What one starts doing in a moment, not as a pastime: "I started crying", "I began to panic".
MOMENT_GERUNDS = wordset(
    """
    crying laughing shaking panicking screaming sweating worrying freaking yelling giggling
    shouting sobbing smiling blushing
    """
)
# What one joins for a while, not as a member: "I joined a call", "joined the stream", "signed
# up for the trivia night" (a capitalised name is still a membership: "joined the Labour Party").
JOINED_FOR_A_WHILE = wordset(
    """
    call calls meeting meetings stream livestream game games match lobby queue raid webinar
    conversation chat discussion session vc hangout party dinner lunch breakfast brunch
    tournament race protest parade march rally tour hike walk ride trip show concert event
    gathering celebration ceremony contest competition trivia night standup interview workshop
    """
)
# Particles of phrasal verbs that say a habit began: "I've taken up the viola".
TAKEN_UP = wordset("taken took picked started begun began")
# Verbs a progressive still states a lasting fact with: "I'm living in Turku".
LASTING_PROGRESSIVE = wordset("living working studying based teaching training")
# Words and phrases that pin a statement to this moment: "I'm so tired today", "I'm stuck in
# traffic again", "I'm at the gym right now".
MOMENT = wordset("today tonight tomorrow yesterday rn atm again later soon tmr tmrw tonite")
MOMENT_PHRASES = (
    "this morning",
    "this afternoon",
    "this evening",
    "this week",
    "this weekend",
    "right now",
    "just now",
    "last night",
    "next week",
    "next month",
    "next year",
)
# Time phrases that end a lasting statement and are dropped from it ("I live in Recife now").
TRAILING_TIME = (
    "these days",
    "nowadays",
    "now",
    "originally",
    "anymore",
    "lately",
    "at the moment",
    "for now",
    "last year",
    "last month",
    "a while ago",
    "recently",
    "too",
    "as well",
)
# Pronouns and pointing words: left in a learned fact they make it a riddle.
DEICTIC = wordset(
    """
    i me my mine myself we us our ours you your yours u ur ya y'all yall he him his she her
    hers they them their theirs it its this that these those there here everyone everybody
    everything something anything nothing someone somebody anyone whatever stuff things
    """
)
# Words that open a clause, not a noun phrase: "I love how it's relaxing", "I hate when...".
CLAUSE_OPENERS = wordset("how what when where why who which whether if that because the_way")
# Prepositions that open the detail of a statement ("at the hospital", "on weekends").
PREPOSITIONS = wordset(
    """
    at in on with for from to of by near about into during since around across over under
    after before through without within outside inside like as per via until every each
    """
)
DETERMINERS = wordset("a an the some any two three four five six seven eight nine ten few many")
NUMBER_WORDS = wordset("two three four five six seven eight nine ten eleven twelve")
# Conjunctions that start a new clause: the statement ends before them.
CLAUSE_BREAKS = wordset("but because cause cuz coz so though although whereas then plus")
# Conjunctions that start a clause of background ("when I moved to Boston it was snowing"):
# what follows them is not stated for its own sake. Before a noun they are prepositions
# ("I cycle before work").
SUBORDINATORS = wordset("when while whenever until unless after before since once if")
# Words after "and" that start a new clause rather than another object.
NEW_SUBJECT = wordset("i we he she they it my our his her their you then now also that this")
# Adjectives of a feeling or a readiness of the moment: "I'm happy to help", "I'm sorry about
# Max", "I'm off to the gym", "I'm down to join" state a reaction or a plan, not who one is
# ("I'm allergic to latex", "I'm passionate about jazz" do).
REACTIONS = wordset(
    """
    happy glad sorry excited thrilled pumped stoked psyched proud lucky grateful thankful
    blessed honored honoured sad upset down off in up able unable ready eager sure free
    delighted relieved curious impressed amazed surprised touched
    """
)
# How one is doing, said as a verb's whole object: "I've been doing great", "I'm working
# hard", "I stay positive". Small talk about the moment, not a fact.
HOW_ONE_IS = wordset("great good well fine ok okay alright better busy hard positive")
# Verbs that say a state goes on ("I stay motivated", "I keep trying"): a fact only with a
# thing for an object ("I keep bees", "I stay at home with the kids").
GOING_ON = wordset("stay remain keep")
# What an object says when it holds nothing else: "spending time", "a huge fan", "working on
# a project", "every memory" name no pastime, thing or person, so a fact of them tells a
# reader nothing ("Maria loves spending time"). With another word they do ("time with family",
# "a fan of jazz"). "A lot" and "a bit" are not among them: they size the verb, which names
# what ("Ann travels a lot"). The verbs that only carry such a noun, and the words that only
# size it.
GENERIC_NOUNS = wordset(
    """
    time times look fan fans project projects people person thing things stuff memory
    memories way ways part one ones
    """
)
# What something at hand is like: "I love the color", "I love the energy" react to a picture,
# a dish or a place in front of the speaker, not a lasting liking ("the sound of rain", with
# what it is of, names it).
QUALITIES = wordset(
    """
    color colors colour colours texture textures energy vibe vibes atmosphere idea ideas
    thought acting theme themes design details shape style sound message ending plot concept
    lighting scenery composition
    """
)
# Doing words that say where or into what only with their detail: "getting lost in those
# worlds" is not "getting lost", "escaping to that world" not "escaping".
NEEDS_ITS_DETAIL = wordset("escaping getting going losing diving sinking heading retreating")
LIGHT_VERBS = wordset(
    "spend spending take taking have having make making do doing get getting give giving"
)
SIZING = wordset("every all each new old other such great good huge big total little whole")
# Degree words that make "I'm a bit tired" a mood, not an identity.
DEGREE = wordset("bit little tad lot kind sort")
# Capitalised words that are not names: "my sister Monday" is not a sister called Monday.
NOT_NAMES = wordset(
    """
    I The A An And But So Is Was Just Really Very My Our This That It He She They We You
    Today Yesterday Tomorrow Monday Tuesday Wednesday Thursday Friday Saturday Sunday
    January February March April May June July August September October November December
    Lol Omg Haha
    """
)
