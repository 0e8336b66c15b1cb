"""What the bot says about itself when it starts: the start-up banner.

Text only (no Discord calls), so tests read exactly what an admin reads. Secrets never appear:
the database is named by host or directory, the token only lends its first segment (the
application id, which is public) to the invite link.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence
from importlib import metadata
from urllib.parse import urlencode

from memory.core.purposes import PURPOSES
from memory.core.settings import Settings
from memory.core.text import plural
from memory.ports import FrontDoor, describe_database

# View Channels (1 << 10), Send Messages (1 << 11), Read Message History (1 << 16).
INVITE_PERMISSIONS = (1 << 10) | (1 << 11) | (1 << 16)
INVITE_SCOPES = "bot applications.commands"

ChainFor = Callable[[str], Sequence[str]]
ModelFor = Callable[[str, str], str]


def version() -> str:
    try:
        return metadata.version("memorybot")
    except metadata.PackageNotFoundError:
        return "unknown"


def client_id_from_token(token: str) -> int | None:
    """The application id a bot token starts with (base64 of the decimal id), if it parses."""
    first = token.strip().split(".", 1)[0]
    try:
        text = base64.b64decode(first + "=" * (-len(first) % 4), validate=False).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return int(text) if text.isdigit() else None


def invite_url(client_id: int) -> str:
    query = urlencode(
        {"client_id": client_id, "scope": INVITE_SCOPES, "permissions": INVITE_PERMISSIONS}
    )
    return f"https://discord.com/oauth2/authorize?{query}"


def llm_lines(chain_for: ChainFor, model_for: ModelFor) -> list[str]:
    """One line per distinct chain: the purposes it serves, provider (model) -> fallbacks."""
    groups: dict[str, list[str]] = {}
    for purpose in PURPOSES:
        steps = []
        for provider in chain_for(purpose):
            model = model_for(provider, purpose)
            steps.append(f"{provider} ({model})" if model and provider != "offline" else provider)
        groups.setdefault(" -> ".join(steps) or "none", []).append(purpose)
    return [f"  LLM {', '.join(purposes)}: {chain}" for chain, purposes in groups.items()]


def startup_lines(
    settings: Settings, *, version: str, chain_for: ChainFor, model_for: ModelFor
) -> list[str]:
    """The configuration half of the banner: version, LLM chains, database, where files go."""
    locations = settings.locations
    lines = [
        f"memorybot {version}",
        *llm_lines(chain_for, model_for),
        f"  database: {describe_database(settings)}",
        f"  logs and telemetry: {settings.log_dir}",
    ]
    if locations is not None:
        lines.append(f"  settings from {locations.describe()}")
    if settings.provider == "offline":
        lines.append(
            "  note: the offline provider answers from stored text without a model; set "
            "GEMINI_API_KEY or LLM_PROVIDER=openai for real replies and summaries"
        )
    return lines


def guild_lines(
    user: str, guild_names: Sequence[str], *, token: str | None, application_id: int | None
) -> list[str]:
    """The Discord half: who the bot is, the guilds it is in, or how to invite it."""
    if guild_names:
        shown = ", ".join(sorted(guild_names)[:20])
        more = f" and {len(guild_names) - 20} more" if len(guild_names) > 20 else ""
        return [f"connected as {user} to {plural(len(guild_names), 'guild')}: {shown}{more}"]
    client_id = application_id or (client_id_from_token(token) if token else None)
    lines = [f"connected as {user} but in no guild yet, so it has nobody to remember"]
    if client_id is not None:
        lines.append(f"  invite it: {invite_url(client_id)}")
    lines.append(
        "  (enable the Server Members and Message Content intents on the Bot page of the "
        "developer portal)"
    )
    return lines


def memory_chain(memory: FrontDoor) -> tuple[ChainFor, ModelFor]:
    """chain_for/model_for of an opened memory's provider chain."""
    return memory.operations.chain_for, memory.operations.model_for
