"""The production image, checked by reading its Dockerfile (no Docker needed): multi-stage,
non-root, a health check, dependencies from the lock file in a layer of their own and
without the embedded PostgreSQL, every base image pinned by digest."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from tests.container_support import (
    LOCK,
    ROOT,
    Instruction,
    Stage,
    command_words,
    copy_sources,
    default_of,
    is_locked_install,
    is_source_copy,
    parse_dockerfile,
)

# An image named with its version and pinned by digest (production hardening, issue 27).
DIGEST = re.compile(r"^[\w./-]+:[\w.-]+@sha256:[0-9a-f]{64}$")


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return document


@pytest.fixture(scope="module")
def stages() -> list[Stage]:
    return parse_dockerfile((ROOT / "Dockerfile").read_text())


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


def test_every_image_is_pinned_by_digest_with_its_version(
    compose: dict[str, Any], stages: list[Stage]
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
