"""The Compose files, checked by reading them (no Docker needed).

No Docker engine runs in CI, so these tests hold the properties an operator relies on: a
Compose PostgreSQL that matches development; capped logs; enough time on shutdown for the
ingest writer to flush; services without capabilities, on read-only root filesystems, each
with only its own settings and nothing published beyond the loopback. The image is checked
in test_container_image.py, the dependencies and their lock in test_container_lock.py.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from db.embedded_settings import SHARED_BUFFERS_SHARE
from tests.container_support import (
    INGEST_FLUSH_TIMEOUT_SECONDS,
    ROOT,
    default_of,
    duration_seconds,
)


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return document


# --- docker-compose.yml ----------------------------------------------------------------------


def test_duration_parser() -> None:
    assert duration_seconds("1m30s") == 90
    assert duration_seconds("45s") == 45
    with pytest.raises(AssertionError):
        duration_seconds("45")


def test_postgres_is_18_with_pgvector(compose: dict[str, Any]) -> None:
    postgres = compose["services"]["postgres"]
    image, _, tag = default_of(postgres["image"]).partition(":")
    assert image == "pgvector/pgvector"
    assert re.fullmatch(r"(\d+\.\d+\.\d+-)?pg18\b.*", tag), tag
    # The 18+ images keep PGDATA under /var/lib/postgresql/18/docker.
    targets = [v.split(":")[1] for v in postgres["volumes"]]
    assert "/var/lib/postgresql" in targets


def test_every_service_caps_its_logs(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        logging = service.get("logging") or {}
        assert logging.get("driver") == "json-file", name
        options = logging.get("options") or {}
        assert re.fullmatch(r"\d+[kmg]", str(options.get("max-size", ""))), name
        assert int(options.get("max-file", 0)) >= 1, name


def test_bot_has_time_to_flush_on_shutdown(compose: dict[str, Any]) -> None:
    bot = compose["services"]["bot"]
    assert duration_seconds(bot["stop_grace_period"]) > INGEST_FLUSH_TIMEOUT_SECONDS
    assert bot.get("init") is True


def test_default_is_one_bot_and_postgres(compose: dict[str, Any]) -> None:
    default = {n for n, s in compose["services"].items() if not s.get("profiles")}
    assert default == {"postgres", "bot"}
    bot = compose["services"]["bot"]
    assert "host.docker.internal:host-gateway" in bot["extra_hosts"]
    assert bot["environment"]["DATABASE_URL"].startswith("postgresql://")


def test_secrets_override_reads_the_password_from_a_file() -> None:
    override = yaml.safe_load((ROOT / "docker-compose.secrets.yml").read_text())
    postgres = override["services"]["postgres"]
    assert postgres["environment"]["POSTGRES_PASSWORD_FILE"] == "/run/secrets/postgres_password"
    assert postgres["environment"]["POSTGRES_PASSWORD"] == ""  # exclusive with the _FILE one
    assert postgres["secrets"] == ["postgres_password"]
    assert "postgres_password" in override["secrets"]
    # The bot reads its token from /run/secrets/discord_token (load_settings' secrets dir).
    assert override["services"]["bot"]["secrets"] == ["discord_token"]
    assert override["secrets"]["discord_token"]["file"] == "./secrets/discord_token"


def test_scale_override_runs_two_shards_and_a_worker(compose: dict[str, Any]) -> None:
    scale = yaml.safe_load((ROOT / "docker-compose.scale.yml").read_text())["services"]
    shards = {
        name: service["environment"]
        for name, service in scale.items()
        if "SHARD_IDS" in service.get("environment", {})
    }
    assert sorted(env["SHARD_IDS"] for env in shards.values()) == ["0", "1"]
    assert {env["SHARD_COUNT"] for env in shards.values()} == {"2"}
    assert all(env["RUN_WORKER"] == "false" for env in shards.values())  # the worker works
    assert "memorybot worker" in " ".join(scale["worker"]["command"])
    log_dirs = [service["environment"]["LOG_DIR"] for service in scale.values()]
    assert len(set(log_dirs)) == len(log_dirs)  # no two processes share a heartbeat file
    for name in ("bot-shard1", "worker"):
        assert scale[name]["extends"] == {"file": "docker-compose.yml", "service": "bot"}


# --- production hardening (issue 27) ----------------------------------------------------------


def test_every_service_drops_capabilities_and_privileges_and_has_a_memory_limit(
    compose: dict[str, Any],
) -> None:
    for name, service in compose["services"].items():
        assert service.get("cap_drop") == ["ALL"], name
        assert "no-new-privileges:true" in service.get("security_opt", []), name
        assert re.fullmatch(r"\d+[kmg]", str(service.get("mem_limit", ""))), name
    # Only PostgreSQL's entrypoint needs a few back: to own its data and step down to postgres.
    added = {n: s["cap_add"] for n, s in compose["services"].items() if s.get("cap_add")}
    assert set(added) == {"postgres"}
    assert set(added["postgres"]) <= {"CHOWN", "DAC_OVERRIDE", "FOWNER", "SETGID", "SETUID"}


def _megabytes(size: str) -> int:
    found = re.fullmatch(r"(\d+)\s*([kKmMgG])B?", size)
    assert found, f"not a size: {size!r}"
    number, unit = found.groups()
    return int(number) * {"k": 1, "m": 2**10, "g": 2**20}[unit.lower()] // 2**10


def test_postgres_buffers_are_a_quarter_of_its_memory_limit(compose: dict[str, Any]) -> None:
    """As the embedded server sizes itself (db/embedded_settings.py), not the image's 128 MB."""
    postgres = compose["services"]["postgres"]
    options = dict(
        option.split("=", 1)
        for flag, option in zip(postgres["command"], postgres["command"][1:], strict=False)
        if flag == "-c"
    )
    limit = _megabytes(str(postgres["mem_limit"]))
    assert _megabytes(options["shared_buffers"]) == int(limit * SHARED_BUFFERS_SHARE)


def test_the_bot_runs_on_a_read_only_root_filesystem(compose: dict[str, Any]) -> None:
    for name in ("bot", "postgres", "backup"):
        service = compose["services"][name]
        assert service.get("read_only") is True, name
        assert "/tmp" in service.get("tmpfs", []), name
    # What the bot writes goes to its volume: telemetry, the heartbeat, the breaker state.
    bot = compose["services"]["bot"]
    assert "logs:/var/log/memorybot" in bot["volumes"]
    assert bot["environment"]["LOG_DIR"] == "/var/log/memorybot"


def test_each_service_gets_only_its_own_settings(compose: dict[str, Any]) -> None:
    bot = compose["services"]["bot"]
    env_files = bot["env_file"] if isinstance(bot["env_file"], list) else [bot["env_file"]]
    # `.env` is Compose's own (it holds POSTGRES_PASSWORD): never handed to a container whole.
    assert ".env" not in env_files and "memorybot.env" in env_files
    for name, service in compose["services"].items():
        assert ".env" not in str(service.get("env_file", "")).split("/")[-1:], name
        names = set(service.get("environment", {}))
        if name != "postgres":
            assert not {n for n in names if n.startswith("POSTGRES_")}, name
    assert set(compose["services"]["postgres"]["environment"]) == {
        "POSTGRES_USER",
        "POSTGRES_DB",
        "POSTGRES_PASSWORD",
    }
    assert not any(
        key.startswith(("DISCORD", "GEMINI", "OPENAI"))
        for key in compose["services"]["backup"]["environment"]
    )


def test_nothing_is_published_beyond_the_loopback(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        for port in service.get("ports", []):
            assert str(port).startswith("127.0.0.1:"), f"{name} publishes {port} to everyone"
    assert compose["services"]["ollama"]["ports"] == ["127.0.0.1:11434:11434"]


def test_a_scheduled_backup_service_dumps_and_prunes(compose: dict[str, Any]) -> None:
    backup = compose["services"]["backup"]
    assert backup["profiles"] == ["backup"]
    assert default_of(backup["image"]) == default_of(compose["services"]["postgres"]["image"])
    script = " ".join(backup["entrypoint"])
    assert "pg_dump -Fc" in script and "sleep" in script and "-delete" in script
    assert "backups:/backups" in backup["volumes"]
    assert backup["environment"]["PGHOST"] == "postgres"
    operations = (ROOT / "docs" / "operations.md").read_text()
    assert "docker compose --profile backup" in operations
    assert "pg_restore" in operations and "/backups/" in operations


def test_file_secrets_are_readable_by_the_bots_group() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert compose["services"]["bot"]["group_add"] == ["${SECRETS_GID:-10001}"]
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "groupadd --gid 10001 memorybot" in dockerfile
    assert "useradd --create-home --uid 10001 --gid 10001 memorybot" in dockerfile
    recipe = (ROOT / "docker-compose.secrets.yml").read_text()
    assert "umask 077" in recipe and "chmod 640 secrets/discord_token" in recipe
    assert "SECRETS_GID=$(id -g)" in recipe


def test_the_bot_is_healthy_only_with_a_gateway_heartbeat_and_the_worker_without_one(
    compose: dict[str, Any],
) -> None:
    """Issue 37.15: a bot whose gateway never connected is unhealthy under Compose."""
    assert compose["services"]["bot"]["healthcheck"]["test"] == [
        "CMD",
        "memorybot",
        "health",
        "--require-bot",
    ]
    scale = yaml.safe_load((ROOT / "docker-compose.scale.yml").read_text())
    assert "--require-bot" not in scale["services"]["worker"]["healthcheck"]["test"]


def test_each_settings_template_says_which_file_it_is_and_holds_only_its_own() -> None:
    """Issue 37.12: the bot's template never holds Compose's password; Compose's has it."""
    bot = (ROOT / ".env.example").read_text()
    assert "`memorybot.env` beside docker-compose.yml" in bot[:600]
    assert not [line for line in bot.splitlines() if line.startswith("POSTGRES_PASSWORD")]
    assert "so that Compose default applies" not in bot
    own = (ROOT / "compose.env.example").read_text()
    assert own.startswith("# Docker Compose's own settings: copy this file to `.env`")
    assert "\nPOSTGRES_PASSWORD=\n" in own
