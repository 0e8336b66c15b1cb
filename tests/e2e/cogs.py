"""The cogs a member's memory commands need end to end: freeform commands are answered by the
replies cog (issue 45's one use case), slash commands by the facts cog and /memory."""

MEMORY_COGS = [
    "bot.cogs.errors",
    "bot.cogs.ingest",
    "bot.cogs.facts",
    "bot.cogs.replies",
    "bot.cogs.memory_group",
]
