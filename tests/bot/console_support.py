"""Settings for console tests: the offline model, no stdout telemetry, a fast ingest flush."""

from __future__ import annotations

from pathlib import Path

from memory.core.settings import Settings


def console_settings(tmp_path: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "llm_provider": "offline",
        "telemetry_stdout": False,
        "log_dir": tmp_path / "logs",
        "ingest_flush_seconds": 0.05,
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg, arg-type]
