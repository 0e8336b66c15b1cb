"""Secret files the process cannot read: one line that says which and how to fix it.

Compose's file secrets are bind mounts that keep the host file's owner and mode, so a secret
written under `umask 077` is unreadable for the container's uid 10001, and pydantic-settings
then failed with a traceback. Checked before settings are built.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from memory.core.settings_errors import SettingsError


def check_secret_files(directory: Path, names: Iterable[str]) -> None:
    """SettingsError naming the first secret file (of a setting in `names`) this process
    cannot read; nothing when all can be read."""
    for name in sorted(set(names)):
        path = directory / name
        if not path.is_file():
            continue
        try:
            with path.open("rb"):
                pass
        except OSError as exc:
            groups = ",".join(str(gid) for gid in os.getgroups()) or "none"
            raise SettingsError(
                f"setting {name.upper()}: cannot read the secret file {path} ({exc.strerror}; "
                f"this process: uid {os.getuid()}, groups {groups}); make it group-readable "
                "(chmod 640) and set SECRETS_GID in Compose's .env to its group "
                "(docs/operations.md, 'Secrets in files')"
            ) from None
