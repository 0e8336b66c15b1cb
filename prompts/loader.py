"""Fill a prompt template: `{{name}}` slots get XML-escaped values.

User text is always escaped, so a message containing `</content>` or `<system>` stays text.
Fragments built by `element()` are already escaped and marked `Raw` so they go in verbatim.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

PROMPTS_DIR = Path(__file__).parent
_SLOT = re.compile(r"\{\{(\w+)\}\}")
# Characters XML 1.0 forbids (controls except tab/newline/CR, lone surrogates, U+FFFE/U+FFFF);
# they would break the document's structure and confuse some models.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


class Raw(str):
    """Text that is already valid, escaped XML (built by `element`)."""


class PromptError(KeyError):
    """A template slot was left unfilled or a value was given for no slot."""


def escape_text(value: object) -> str:
    """Safe anywhere, attributes included (a slot may sit inside one)."""
    text = _CONTROL.sub("", str(value))
    return escape(text, {'"': "&quot;"})


def escape_body(value: object) -> str:
    """Safe as element content: `&`, `<` and `>` escaped, quotes kept (`&quot;` costs a
    model about three tokens per quote and content never needs it)."""
    return escape(_CONTROL.sub("", str(value)))


def element(tag: str, content: object = "", /, **attributes: object) -> Raw:
    """`<tag a="...">content</tag>` with attributes and non-Raw content escaped."""
    attrs = "".join(
        f" {key}={quoteattr(_CONTROL.sub('', str(value)))}"
        for key, value in attributes.items()
        if value is not None
    )
    body = content if isinstance(content, Raw) else escape_body(content)
    return Raw(f"<{tag}{attrs}>{body}</{tag}>")


def join(fragments: list[Raw], separator: str = "\n") -> Raw:
    return Raw(separator.join(fragments))


@cache
def template(name: str) -> str:
    return (PROMPTS_DIR / f"{name}.xml").read_text(encoding="utf-8")


def render(name: str, /, **values: object) -> str:
    """Render `prompts/<name>.xml`; every slot must be filled and every value used."""
    text = template(name)
    slots = set(_SLOT.findall(text))
    missing = slots - values.keys()
    extra = values.keys() - slots
    if missing or extra:
        raise PromptError(f"prompt {name}: missing {sorted(missing)}, unexpected {sorted(extra)}")

    def fill(match: re.Match[str]) -> str:
        value = values[match.group(1)]
        return value if isinstance(value, Raw) else escape_text(value)

    return _SLOT.sub(fill, text)
