"""Settings for console tests: the offline model, no stdout telemetry, a fast ingest flush."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memory.core.settings import Settings


def console_settings(tmp_path: Path, **overrides: Any) -> Settings:
    """Offline console settings; `overrides` are validated by pydantic like an .env's values."""
    values: dict[str, Any] = {
        "llm_provider": "offline",
        "telemetry_stdout": False,
        "log_dir": tmp_path / "logs",
        "ingest_flush_seconds": 0.05,
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)
