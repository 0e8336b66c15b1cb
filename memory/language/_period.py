"""The stretch of time a question asks about: "on 1 May, 2022", "in July", "in March 2023",
"in 2022". A search prefers what was said then (memory/recall), since people ask about the
past by when it happened as often as by what it was."""

from __future__ import annotations

import re
from datetime import date, timedelta

from memory.language._asked import _MONTH, _MONTH_OF, _named_date

# "in July", "in July 2023", "July 2023", "during March", "early May 2022" (not "may" alone: a
# modal verb as often as a month).
_IN_MONTH = re.compile(
    rf"\b(?:in|during|of|since|early|late|mid)\s+({_MONTH})\b\.?(?:,?\s+(\d{{4}}))?"
    rf"|\b({_MONTH})\.?,?\s+(\d{{4}})\b",
    re.IGNORECASE,
)
_IN_YEAR = re.compile(r"\b(?:in|during|of)\s+((?:19|20)\d{2})\b", re.IGNORECASE)


def asked_period(text: str, today: date) -> tuple[date, date] | None:
    """[first day, day after the last) of the day, month or year a question names; None when
    it names none. A month without a year is its latest one that has begun by `today`."""
    day = _named_date(text, today, None)
    if day is not None:
        return day, day + timedelta(days=1)
    found = _IN_MONTH.search(text)
    if found is not None:
        name = found.group(1) or found.group(3)
        year_text = found.group(2) or found.group(4)
        month = _MONTH_OF[name.lower()]
        year = int(year_text) if year_text else today.year - (month > today.month)
        start = date(year, month, 1)
        end = date(year + month // 12, month % 12 + 1, 1)
        return start, end
    year_found = _IN_YEAR.search(text)
    if year_found is not None:
        year = int(year_found.group(1))
        return date(year, 1, 1), date(year + 1, 1, 1)
    return None
