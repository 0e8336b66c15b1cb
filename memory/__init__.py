"""memorybot's memory.

Front ends reach it through two packages: `memory.wiring` opens it (`open_memory(settings)`,
the one composition root) and `memory.ports` says what they may do with it (six faces:
chat events, conversation, member commands, administration, reports, operations; and the value
types and renderers they show). The capability packages below (ingest, facts, commands,
members, summaries, context, replies, recall, episodes, privacy, guilds, jobs, llm, telemetry,
usage, admin, database) are reached through those; `memory.language` holds the English they
read and `memory.core` the kernel everyone shares. `tests/test_layering.py` holds everyone to
that.

This module imports nothing, so importing a leaf such as `memory.core.models` (as `db/` does)
does not open the package tree.
"""
