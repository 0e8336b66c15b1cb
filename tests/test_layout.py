"""tests/ mirrors the packages (issue 45): the tests of memory/recall are in tests/memory/recall,
so a newcomer finds a package's tests by its path, and a package without tests shows here."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("memory", "db", "bot", "prompts")
# Folders of tests that mirror no product package: the benchmarks' own tests (bench/) and the
# end-to-end runs of the whole bot against the fake Discord.
BESIDES = {"tests/bench", "tests/e2e"}


def _packages(top: Path, roots: tuple[str, ...]) -> set[str]:
    """Folders under `roots` holding Python modules, as paths relative to `top`."""
    return {
        str(init.parent.relative_to(top))
        for root in roots
        for init in (top / root).rglob("__init__.py")
        if "__pycache__" not in init.parts
    }


def _test_folders() -> set[str]:
    return {
        str(folder.relative_to(ROOT / "tests"))
        for folder in (ROOT / "tests").rglob("*")
        if folder.is_dir() and any(folder.glob("test_*.py"))
    }


def _untested(package: str, tested: set[str]) -> bool:
    """A package with modules of its own needs tests in its mirror folder; a package that only
    groups others (memory/) needs the folder."""
    own_modules = [m for m in (ROOT / package).glob("*.py") if m.name != "__init__.py"]
    if own_modules:
        return package not in tested
    return not (ROOT / "tests" / package).is_dir()


def test_every_product_package_has_a_tests_folder_mirroring_it() -> None:
    tested = _test_folders()
    missing = sorted(p for p in _packages(ROOT, PRODUCT) if _untested(p, tested))
    assert not missing, f"no tests/<package> folder with a test for: {', '.join(missing)}"


def _besides(folder: str) -> bool:
    return any(folder == b or folder.startswith(f"{b}/") for b in BESIDES)


def test_every_tests_folder_mirrors_a_package() -> None:
    packages = _packages(ROOT, PRODUCT)
    strays = sorted(
        f"tests/{folder}"
        for folder in _test_folders()
        if folder not in packages and not _besides(f"tests/{folder}")
    )
    assert not strays, f"tests folders that mirror no package: {', '.join(strays)}"


def test_the_check_sees_the_packages() -> None:
    """A mirror check that finds no package holds nothing."""
    packages = _packages(ROOT, PRODUCT)
    assert {"memory/recall", "memory/wiring", "bot/cogs", "db", "prompts"} <= packages
    assert len(packages) > 25
