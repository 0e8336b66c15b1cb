"""The streaming reader gives exactly what json.load gives, whatever the chunk boundaries."""

from __future__ import annotations

import io
import json

import pytest

from memory.ingest._json_stream import JsonStreamError, ObjectStream

DOCUMENT = {
    "guild": {"id": "1", "name": "ünïcode ☕"},
    "messages": [
        {"id": "1", "n": 12345678901234567890, "f": -1.5e10, "t": True, "x": None},
        {"id": "2", "s": 'quote " and \\ backslash \u2028', "emoji": "👋🏽", "nested": [[], {}]},
        12,
        "plain",
    ],
    "messageCount": 4,
    "tail": [1, 2],
}


def _events(data: bytes, chunk: int) -> list[tuple[str, str, object]]:
    stream = ObjectStream(io.BytesIO(data), stream_keys=frozenset({"messages"}), chunk_size=chunk)
    return list(stream.events())


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, 1 << 20])
@pytest.mark.parametrize("indent", [None, 2])
def test_same_result_for_any_chunk_size(chunk: int, indent: int | None) -> None:
    data = ("\ufeff" + json.dumps(DOCUMENT, ensure_ascii=False, indent=indent)).encode()
    events = _events(data, chunk)
    assert [value for kind, _, value in events if kind == "item"] == DOCUMENT["messages"]
    keys = {key: value for kind, key, value in events if kind == "key"}
    assert keys == {k: v for k, v in DOCUMENT.items() if k != "messages"}


def test_number_split_across_chunks_is_not_cut_short() -> None:
    data = b'{"messages": [1234567890]}'
    assert _events(data, 16)[0][2] == 1234567890


def test_empty_array_and_object() -> None:
    assert _events(b'{"messages": []}', 4) == []
    assert _events(b"{}", 4) == []


@pytest.mark.parametrize(
    ("data", "truncated"),
    [
        (b'{"messages": [{"id": 1}, {"id"', True),
        (b'{"messages": [{"id": 1}', True),
        (b'{"messages": [{"id": 1},', True),
        (b'{"messages": [{"id": 1} {"id": 2}]}', False),
        (b'{"messages": [{"id": 1}]} trailing', False),
        (b"", True),
    ],
)
def test_errors_tell_truncation_from_garbage(data: bytes, truncated: bool) -> None:
    with pytest.raises(JsonStreamError) as info:
        _events(data, 5)
    assert info.value.truncated is truncated
