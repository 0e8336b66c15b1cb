"""Text stand-ins for what a message carries besides text: attachments, embeds, stickers.

Summaries and prompts only read text, so "[image: cat.png]" is how a picture shows up in
memory. Both the live Discord adapter and the export importer build content here, so a
message reads the same whichever way it arrived.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePosixPath

_KIND_BY_EXTENSION = {
    **dict.fromkeys(
        ("png", "jpg", "jpeg", "gif", "webp", "bmp", "heic", "heif", "avif", "tiff"), "image"
    ),
    **dict.fromkeys(("mp4", "mov", "webm", "mkv", "avi", "m4v"), "video"),
    **dict.fromkeys(("mp3", "ogg", "wav", "flac", "m4a", "opus", "aac"), "audio"),
}
_MAX_LABEL = 100
_MAX_DESCRIPTION = 300


def clean_text(text: str) -> str:
    """Text PostgreSQL and every encoder accept: NUL removed, lone UTF-16 surrogates (from
    JSON escapes like \\ud800 or broken clients) replaced by U+FFFD. A split surrogate pair is
    joined back into its character."""
    if "\x00" in text:
        text = text.replace("\x00", "")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def clean_name(name: str | None) -> str | None:
    """A cleaned name; None when nothing readable is left."""
    if name is None:
        return None
    cleaned = clean_text(name).strip()
    return cleaned or None


def _label(text: str, limit: int = _MAX_LABEL) -> str:
    """One line, no brackets that would end the surrogate early, bounded length."""
    single = " ".join(text.split()).replace("[", "(").replace("]", ")")
    return single if len(single) <= limit else single[: limit - 1] + "…"


def attachment_kind(filename: str, content_type: str | None = None) -> str:
    """image / video / audio / file, from the MIME type when known, else the extension."""
    if content_type:
        major = content_type.split("/", 1)[0].lower()
        if major in ("image", "video", "audio"):
            return major
    extension = PurePosixPath(filename).suffix.lstrip(".").lower()
    return _KIND_BY_EXTENSION.get(extension, "file")


def attachment_surrogate(
    filename: str, content_type: str | None = None, description: str | None = None
) -> str:
    """ "[image: cat.png]"; with the attachment's description (Discord's alt text, or an
    export's caption) "[image: a dog running on a beach]", so what a picture shows can be
    remembered and searched like words. A described picture, video or sound loses its file
    name ("IMG_4032.jpg" says nothing its description does not, and costs every prompt that
    recalls the line its tokens); a described file keeps it ("[file: budget.xlsx: ...]")."""
    kind = attachment_kind(filename, content_type)
    described = clean_name(description)
    if described is None:
        return f"[{kind}: {_label(filename)}]"
    if kind == "file":
        return f"[{kind}: {_label(filename)}: {_label(described, _MAX_DESCRIPTION)}]"
    return f"[{kind}: {_label(described, _MAX_DESCRIPTION)}]"


def sticker_surrogate(name: str) -> str:
    return f"[sticker: {_label(name)}]"


def embed_surrogate(
    *, title: str | None = None, description: str | None = None, url: str | None = None
) -> str | None:
    """An embed's title (else description, else URL); None when it has nothing readable."""
    text = title or description or url
    return f"[embed: {_label(text)}]" if text else None


def embed_is_link_preview(url: str | None, content: str) -> bool:
    """Discord's automatic previews repeat a URL already in the text: not worth a surrogate."""
    return url is not None and url != "" and url in content


def compose_content(text: str, surrogates: Iterable[str | None], *, max_chars: int) -> str:
    """Message text followed by its surrogates, clean (`clean_text`) and bounded to
    `max_chars`."""
    parts = [text.strip()] if text and text.strip() else []
    parts += [s for s in surrogates if s]
    content = clean_text(" ".join(parts))
    if len(content) > max_chars:
        content = content[: max_chars - 1] + "…"
    return content
