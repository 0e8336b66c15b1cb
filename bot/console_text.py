"""The console's words: its help, and `/memory NAME` in
words (what the bot remembers and where it came from, without cache keys or source ids;
`memorybot memory show` keeps the detailed view)."""

from __future__ import annotations

from memory.core.text import plural
from memory.ports import ContextReport

__all__ = ["HELP", "explain_report", "plural"]

HELP = """Type as a member of a local guild; address the bot by starting with "{bot}" or "@{bot}".
  /as NAME                 speak as NAME or an id from now on (a new member if nobody is)
  NAME: text               say one line as NAME
  /remember NAME fact      /forget NAME fact      /whois NAME      /undo NAME
  /memory NAME             what the bot remembers about NAME, and where it came from
  /summarize [YYYY-MM-DD]  summarise a day now (default: today)
  /mine  /optout  /optin   what is kept about you; stop being remembered; be remembered again
  /help  /quit (or Ctrl-D, Ctrl-C)
You hold Manage Server here: you may forget or undo facts about anyone, which on Discord only
the member themself or a Manage Server holder may.
Examples:  "alice: hi all, back from Lisbon" (alice joins and speaks)
           "{bot}, remember that alice loves climbing"   "{bot} what do you know about alice?\""""


_SOURCES = {
    "facts": 'facts members asked it to remember (/remember, "remember that ...")',
    "learned": "facts it learned from what they said in chat",
    "today": "a summary of what they said today",
    "history": "a summary of the days before today (up to a week back)",
}

_FALLBACKS = {
    "last_known_good": "the last memory it had built (the model could not build a new one)",
    "facts_and_summaries": "the stored facts and summaries, unmerged",
    "facts": "the stored facts only",
    "none": "nothing",
}


def explain_report(report: ContextReport, *, bot_name: str) -> list[str]:
    """Lines for the terminal: the memory itself, then its ingredients and cost in words."""
    lines = [
        f"What {bot_name} remembers about {report.member_name} "
        f"(as of {report.day}, {report.timezone} days):",
    ]
    text = (report.text or "").strip()
    lines += [f"  {line}" for line in text.splitlines()] if text else ["  (nothing yet)"]
    lines.append("Made from:")
    for source in report.sources:
        about = _SOURCES.get(source.name, source.name)
        amount = plural(source.chars, "character") if source.chars else "nothing yet"
        lines.append(f"  - {about}: {amount}")
    lines.append(
        f"It is {plural(report.chars, 'character')} long; at most {report.max_chars} go into "
        "a reply prompt."
    )
    calls = report.total_llm_calls
    if report.fallback:
        served = _FALLBACKS.get(report.fallback, report.fallback)
        lines.append(f"It is showing {served}, because: {report.fallback_reason}.")
    elif calls:
        days = ", ".join(day.isoformat() for day in report.days_summarised)
        what = f" (summarised {days})" if days else ""
        lines.append(f"Building it took {plural(calls, 'model call')}{what}.")
    else:
        lines.append("Nothing had to be worked out again: it all came from what was stored.")
    return lines
