"""Compose's file secrets keep the host's owner and mode. A secret the bot's uid (10001) cannot
read is one line naming the file and the fix, and the documented recipe (umask 077, then
group-readable for a group the bot joins with `group_add`) lets it read the file.

The settings are loaded in a forked child that has switched to uid 10001, as in the container
(needs root to switch user)."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory.core.settings import load_settings
from memory.core.settings_errors import SettingsError

BOT_UID = BOT_GID = 10001
HOST_GID = 4242  # the admin's own group on the host

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="switching to uid 10001 needs root")


def _load_as_bot(secrets: Path, tmp_path: Path, groups: list[int]) -> dict[str, str]:
    """load_settings() in a child running as uid 10001 with these extra groups."""
    environ = {"MEMORYBOT_SECRETS_DIR": str(secrets)}
    load_settings(environ=environ)  # as root: warms every import the child will need
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        outcome: dict[str, str] = {}
        try:
            os.close(read)
            os.setgroups([BOT_GID, *groups])
            os.setgid(BOT_GID)
            os.setuid(BOT_UID)
            settings = load_settings(environ=environ)
            token = settings.discord_token
            outcome["token"] = token.get_secret_value() if token else ""
        except SettingsError as exc:
            outcome["error"] = str(exc)
        except BaseException as exc:
            outcome["crash"] = f"{type(exc).__name__}: {exc}"
        finally:
            os.write(write, json.dumps(outcome).encode())
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    seen: dict[str, str] = json.loads(data)
    return seen


@pytest.fixture
def secrets() -> Iterator[Path]:
    """/run/secrets stand-in: a directory anyone may enter (pytest's own tmp is root-only)."""
    with tempfile.TemporaryDirectory(prefix="memorybot-secrets-") as name:
        directory = Path(name)
        directory.chmod(0o755)
        yield directory


def test_an_unreadable_secret_is_one_line_and_the_recipe_makes_it_readable(
    secrets: Path, tmp_path: Path
) -> None:
    token = secrets / "discord_token"
    old = os.umask(0o077)
    try:
        token.write_text("the-bot-token")
    finally:
        os.umask(old)
    os.chown(token, 0, HOST_GID)

    refused = _load_as_bot(secrets, tmp_path, groups=[])
    assert "crash" not in refused, refused
    assert refused["error"].startswith(
        f"setting DISCORD_TOKEN: cannot read the secret file {token} (Permission denied; this "
        "process: uid"
    )
    assert "\n" not in refused["error"] and "SECRETS_GID" in refused["error"]

    token.chmod(0o640)  # the recipe: group-readable, and the bot joins that group (group_add)
    assert _load_as_bot(secrets, tmp_path, groups=[HOST_GID]) == {"token": "the-bot-token"}
