"""No command prints a traceback for any value of any numeric option (issue 37): every
numeric option is bounded, and any text given to it is a value in range or one error line
naming the range. A property test over the real argument parser."""

from __future__ import annotations

import argparse
import contextlib
import io
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.cli import build_parser, main

# The bounded types (bounds.whole/decimal return `parse`) and the unbounded ones.
NUMERIC = ("parse", "int", "float")


def _numeric_options() -> list[tuple[list[str], argparse.Action]]:
    """(argv that reaches the subcommand, with its required options) and each numeric option."""
    found: list[tuple[list[str], argparse.Action]] = []

    def visit(parser: argparse.ArgumentParser, prefix: list[str]) -> None:
        required: list[str] = []
        for action in parser._actions:
            if action.required and action.option_strings:
                required += [action.option_strings[0], "1"]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    visit(child, [*prefix, name])
            elif action.option_strings and getattr(action.type, "__name__", "") in NUMERIC:
                found.append(([*prefix, *required], action))

    visit(build_parser(), [])
    return found


OPTIONS = _numeric_options()
VALUES = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(min_size=1, max_size=12).filter(lambda t: not t.startswith("-")),
    st.sampled_from(["99999999999999999999", "-5", "0", "1e309", "nan", "٣", "１０"]),
)


def test_every_numeric_option_is_bounded() -> None:
    assert len(OPTIONS) >= 8
    for _, action in OPTIONS:
        assert action.type not in (int, float), f"{action.option_strings} takes any number"


@pytest.mark.parametrize(
    ("argv", "action"),
    OPTIONS,
    ids=[" ".join([*a[0][:2], *a[1].option_strings[:1]]) for a in OPTIONS],
)
@settings(max_examples=60, deadline=None)
@given(value=VALUES)
def test_any_value_parses_in_range_or_is_one_error_line(
    argv: list[str], action: argparse.Action, value: str
) -> None:
    option = action.option_strings[-1]
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            args = build_parser().parse_args([*argv, f"{option}={value}"])
        except SystemExit as exited:
            assert exited.code == 2
            errors = [line for line in err.getvalue().splitlines() if "error:" in line]
            assert len(errors) == 1 and "Traceback" not in err.getvalue()
            return
    parsed = getattr(args, action.dest)
    assert isinstance(parsed, int | float) and math.isfinite(parsed)
    assert abs(parsed) < 10**7


def test_an_absurd_number_is_refused_in_one_line_by_the_real_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["usage", "--days", "999999999"])
    assert exited.value.code == 2
    assert "999999999 is out of range: use 1 to 3650" in capsys.readouterr().err
