"""Reading the docs as the doc tests compare them: whitespace folded, numbers written as the
docs write them, settings by their env name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memory.core.config_fields import setting_default

ROOT = Path(__file__).resolve().parent.parent


def doc(name: str) -> str:
    """The doc at `name` (from the repository's root) with its whitespace folded."""
    return " ".join((ROOT / name).read_text(encoding="utf-8").split())


def setting(name: str) -> Any:
    """The default of the setting whose env name is `name`."""
    return setting_default(name.lower())


def number(value: float) -> str:
    """A number as the docs write it: 2,000; 0.25; 1.2."""
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"
