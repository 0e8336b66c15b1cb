"""No silent skips in CI (issue 44): what a test or bench needs from the machine (a browser, the
live-model wheel, a dataset) fails the run with one line under CI=true, and skips with one line
elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.needs import require as bench_require
from bench.needs import require_file
from tests.support import require


def test_a_missing_thing_fails_a_test_under_ci_and_skips_it_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"^missing: chromium at /usr/bin/chromium$"):
        require(False, "chromium at /usr/bin/chromium")
    require(True, "chromium at /usr/bin/chromium")  # present: nothing happens
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match=r"^skipped, missing: chromium"):
        require(False, "chromium at /usr/bin/chromium")


def test_a_missing_dataset_fails_a_bench_under_ci_and_skips_it_elsewhere(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = tmp_path / "locomo-dev.json.gz"
    monkeypatch.setenv("CI", "true")
    with pytest.raises(SystemExit) as exited:
        require_file(dataset, "the LoCoMo dev set")
    assert str(exited.value) == f"missing: the LoCoMo dev set ({dataset})"  # exit status 1
    monkeypatch.setenv("CI", "false")
    assert require_file(dataset, "the LoCoMo dev set") is False
    assert capsys.readouterr().err == f"skipped, missing: the LoCoMo dev set ({dataset})\n"
    dataset.write_bytes(b"")
    assert require_file(dataset, "the LoCoMo dev set") is True
    assert bench_require(True, "anything") is True
