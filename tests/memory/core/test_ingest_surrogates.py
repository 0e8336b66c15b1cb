"""Attachments, embeds and stickers read as short text in memory."""

from __future__ import annotations

from memory.core.surrogates import (
    attachment_surrogate,
    compose_content,
    embed_is_link_preview,
    embed_surrogate,
    sticker_surrogate,
)


def test_attachment_kind_from_mime_type_then_extension() -> None:
    assert attachment_surrogate("cat.PNG") == "[image: cat.PNG]"
    assert attachment_surrogate("clip", "video/mp4") == "[video: clip]"
    assert attachment_surrogate("voice-message.ogg", "audio/ogg") == "[audio: voice-message.ogg]"
    assert attachment_surrogate("report.pdf", "application/pdf") == "[file: report.pdf]"


def test_labels_cannot_break_out_of_their_brackets() -> None:
    assert sticker_surrogate("a]b\n[c") == "[sticker: a)b (c]"
    long = embed_surrogate(title="x" * 300)
    assert long is not None and len(long) < 120 and long.endswith("…]")
    assert embed_surrogate() is None


def test_link_previews_are_not_repeated() -> None:
    assert embed_is_link_preview("https://a.b/c", "look https://a.b/c")
    assert not embed_is_link_preview(None, "look")
    assert not embed_is_link_preview("https://a.b/c", "look")


def test_compose_keeps_text_first_bounds_length_and_drops_nul() -> None:
    assert compose_content("  hi\x00 ", ["[image: a.png]", None], max_chars=100) == (
        "hi [image: a.png]"
    )
    assert compose_content("", ["[sticker: wave]"], max_chars=100) == "[sticker: wave]"
    assert compose_content("abcdef", [], max_chars=4) == "abc…"


def test_an_attachment_description_is_kept_so_the_picture_can_be_remembered() -> None:
    assert (
        attachment_surrogate("IMG_1.jpg", None, "a photo of a dog on a beach [sunset]")
        == "[image: a photo of a dog on a beach (sunset)]"
    )
    assert attachment_surrogate("IMG_1.jpg", None, "   ") == "[image: IMG_1.jpg]"


def test_a_described_file_keeps_its_name_a_described_picture_does_not_need_it() -> None:
    assert attachment_surrogate("budget.xlsx", None, "Q3 numbers") == (
        "[file: budget.xlsx: Q3 numbers]"
    )
    assert attachment_surrogate("clip.mp4", "video/mp4", "our goal") == "[video: our goal]"
