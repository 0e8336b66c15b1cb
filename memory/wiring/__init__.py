"""The wiring: the one place every service is built and handed its collaborators.

`open_memory` opens the database, the LLM chain and the writer, `build_memory` builds every
service in the order they depend on each other and the six faces of `memory.ports` over them,
and closing runs in reverse. Nothing else in memory/ constructs a service of another package.
"""

from memory.wiring._memory import Memory
from memory.wiring._open import open_memory

__all__ = ["Memory", "open_memory"]
