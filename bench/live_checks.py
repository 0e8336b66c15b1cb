"""The checks of a live-model run (issue 44), read from what the recording proxy kept and what
members saw, so each can fail: tests/bench/test_live_checks.py makes each fail with a scripted
server that answers wrong in one way.

- a reply the model wrote reaches the member: a console answer contains the text the server sent
  for a `reply` (not the offline fallback's);
- a tools round happened: the server asked for a tool in `tool_calls`, the tool's result went
  back in the next request, and the answer that followed reached the member;
- a structured answer of the model reaches members: a string the model wrote (not copied from
  its prompt) in a whois answer, a day's note, ... is in what the console, `memory show` or the
  digest showed (telemetry's "accepted" also counts answers of which nothing was kept);
- no call fails for a format the server lacks (after the first refusal the bot steps down).
"""

from __future__ import annotations

import json
import re
from collections import Counter

from bench.live_flows import LiveRun
from bench.live_proxy import Exchange
from bench.live_report import examples

# Words of an error that says the server lacks a request format.
_FORMAT_WORDS = ("response_format", "json_schema", "json_object")
_MARKUP = re.compile(r"[*_`>#~\[\]]")
# How much of a server's answer must be found in what the member saw.
_PROBE_CHARS = 120
# The shortest string of a structured answer that counts as written by the model.
_WRITTEN_CHARS = 15
KEPT = "a structured answer of the model reaches members"
TOOLS = "a tools round reached the member"
# Verdicts on the model rather than on the way its words reach members: `make test-llm` reports
# them and counts them only with --strict (SmolLM2-135M, the smallest model CI runs to test the
# way, echoes every structured prompt's example); an admin trying their own model passes it.
MODEL_VERDICTS = frozenset({KEPT})


def tools_round_reached(run: LiveRun) -> bool:
    """Whether a tools round has reached the member in `run` so far: the flows ask the tool
    questions again until it has (bench/live_flows.py, TOOL_SESSIONS)."""
    checks = Checks(run)
    checks.tools_round()
    return not checks.failed()


def normalized(text: str) -> str:
    return " ".join(_MARKUP.sub(" ", text).casefold().split())


def reached(server_text: str, seen: list[str]) -> bool:
    """The member saw the server's text (its start, markup and spacing aside)."""
    probe = normalized(server_text)[:_PROBE_CHARS].strip()
    return bool(probe) and any(probe in normalized(text) for text in seen)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


def written(exchange: Exchange) -> list[str]:
    """The strings of a structured answer the model wrote itself: long enough to tell apart,
    and not a copy of its prompt (which the offline provider may quote as well)."""
    text = exchange.content()
    start = text.find("{")
    try:
        answer = json.JSONDecoder().raw_decode(text[start:])[0] if start >= 0 else None
    except ValueError:
        return []
    prompt = normalized(" ".join(str(m.get("content") or "") for m in exchange.sent_messages()))
    return [
        s
        for s in _strings(answer)
        if len(normalized(s)) >= _WRITTEN_CHARS and normalized(s) not in prompt
    ]


def final_answers(exchanges: list[Exchange], server: str) -> list[Exchange]:
    """The `reply` answers of `server` that are text, not a request for a tool."""
    return [
        e
        for e in exchanges
        if e.server == server
        and e.purpose == "reply"
        and e.status == 200
        and not e.tool_calls()
        and e.content().strip()
    ]


def _short(text: str, limit: int = 100) -> str:
    return repr(" ".join(text.split())[:limit])


class Checks:
    """Each check a named pass/fail with what failed."""

    def __init__(self, run: LiveRun) -> None:
        self.run = run
        self._results: dict[str, str] = {}  # name -> "" (passed) or what failed

    def _set(self, name: str, failure: str) -> None:
        if not self._results.get(name):
            self._results[name] = failure

    def all(self) -> Checks:
        self.no_format_failures()
        self.replies_reach_members()
        self.tools_round()
        self.structured_kept()
        return self

    def no_format_failures(self) -> None:
        failed = [
            e
            for e in self.run.events
            if e.get("op") == "llm_call"
            and e.get("outcome") in ("fallback", "error")
            and any(word in str(e.get("error", "")) for word in _FORMAT_WORDS)
        ]
        said = f"{len(failed)} call(s) did: {failed[0].get('error')}" if failed else ""
        self._set("no call fails for a format", said)

    def replies_reach_members(self) -> None:
        answers = final_answers(self.run.exchanges, "plain")
        seen = [e for e in answers if reached(e.content(), self.run.console)]
        name = "a reply the model wrote reaches the member"
        if seen:
            return self._set(name, "")
        replies = [e for e in self.run.exchanges if e.server == "plain" and e.purpose == "reply"]
        if not answers:
            said = _short(replies[0].content()) if replies else "nothing (no request)"
            return self._set(name, f"the server sent no reply text ({len(replies)} asked): {said}")
        saw = _short(" | ".join(self.run.console))
        said = _short(answers[0].content())
        self._set(
            name,
            f"none of {len(answers)} model replies was shown: the server said {said}, "
            f"the member saw {saw}",
        )

    def tools_round(self) -> None:
        name = TOOLS
        tools = [e for e in self.run.exchanges if e.server == "tools" and e.purpose == "reply"]
        asked = {str(call.get("id")) for e in tools for call in e.tool_calls()}
        if not asked:
            said = _short(tools[0].content()) if tools else "nothing (no request)"
            return self._set(name, f"the server never answered with tool_calls; it said {said}")
        after = [
            e
            for e in tools
            if any(
                m.get("role") == "tool"
                and str(m.get("tool_call_id")) in asked
                and str(m.get("content") or "").strip()
                for m in e.sent_messages()
            )
        ]
        if not after:
            return self._set(name, "tool_calls came back, but no tool result went to the server")
        ran = Counter(str(e.get("outcome")) for e in self.run.events if e.get("op") == "tool_call")
        if not ran.get("ok"):
            said = ", ".join(f"{k} {v}" for k, v in sorted(ran.items())) or "no tool_call event"
            return self._set(name, f"the tool never ran, its result went back empty-handed: {said}")
        finals = [e.content() for e in after if e.status == 200 and not e.tool_calls()]
        finals = [text for text in finals if text.strip()]
        if not finals:
            return self._set(name, "a tool result went back, but no answer followed it")
        if not any(reached(text, self.run.tool_console) for text in finals):
            return self._set(
                name,
                f"the answer after the tool result ({_short(finals[0])}) was not shown: the "
                f"member saw {_short(' | '.join(self.run.tool_console))}",
            )
        self._set(name, "")

    def seen(self) -> list[str]:
        """Everything members and admins were shown."""
        run = self.run
        return [*run.console, *run.tool_console, *run.memory.values(), run.digest]

    def kept(self) -> dict[str, str]:
        """Per purpose, the first text of the model's that reached members (a reply's answer,
        a string of a structured answer): what the report shows as kept."""
        found: dict[str, str] = {}
        seen, tools = self.seen(), final_answers(self.run.exchanges, "tools")
        for e in final_answers(self.run.exchanges, "plain") + tools:
            if reached(e.content(), seen):
                found.setdefault("reply", e.content())
        for e in self.run.exchanges:
            if e.purpose != "reply":
                shown = [text for text in written(e) if reached(text, seen)]
                if shown:
                    found.setdefault(e.purpose, shown[0])
        return found

    def structured_kept(self) -> None:
        """Some purpose's structured answer (a whois answer, a day's note) was shown: a string
        the model wrote, not copied from its prompt, is in what members and admins saw."""
        shown = [purpose for purpose in self.kept() if purpose != "reply"]
        failure = ""
        if not shown:
            asked = [e for e in self.run.exchanges if e.purpose != "reply"]
            said = "; ".join(
                f"{purpose} answered {what}" for purpose, what in examples(asked).items()
            )
            failure = f"no structured answer of the model was shown: {said or 'none asked'}"
        self._set(KEPT, failure)

    def results(self) -> list[tuple[str, bool]]:
        return [(name, bool(failure)) for name, failure in self._results.items()]

    def failed(self, *, strict: bool = True) -> set[str]:
        """The failed checks; without `strict`, not the verdicts on the model (MODEL_VERDICTS)."""
        return {
            name
            for name, failure in self._results.items()
            if failure and (strict or name not in MODEL_VERDICTS)
        }

    def lines(self, *, strict: bool = True) -> list[str]:
        """One line a check: ok, FAIL, or for a verdict on the model that does not count
        (`strict` off) NOTE."""
        out = []
        for name, failure in self._results.items():
            mark = (
                "ok  "
                if not failure
                else ("FAIL" if strict or name not in MODEL_VERDICTS else "NOTE")
            )
            out.append(f"{mark}  {name}{': ' + failure if failure else ''}")
        return out
