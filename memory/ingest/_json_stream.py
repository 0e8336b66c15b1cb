"""Stream one big JSON array out of a JSON object without loading the file.

Why: a DiscordChatExporter export of a busy channel is hundreds of megabytes, almost all of
it the "messages" array. `ObjectStream` yields the other top-level keys whole and the items of
the chosen array one at a time, reading the file in chunks; memory stays at one chunk plus one
item. Errors say where (line) and whether the file simply ends early (truncated).
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from typing import Any, BinaryIO

CHUNK = 1 << 20
_WHITESPACE = " \t\r\n"


class JsonStreamError(ValueError):
    """Malformed or truncated JSON; the message names the line."""

    def __init__(self, message: str, *, line: int, truncated: bool = False) -> None:
        super().__init__(f"{message} (line {line})")
        self.line = line
        self.truncated = truncated


class ObjectStream:
    """Events of a top-level JSON object: ("key", name, value) or ("item", name, value) for each
    element of the array under one of `stream_keys`."""

    def __init__(
        self, source: BinaryIO, *, stream_keys: frozenset[str], chunk_size: int = CHUNK
    ) -> None:
        self._source = source
        self._stream_keys = stream_keys
        self.arrays_seen: set[str] = set()  # stream keys whose value was an array
        self._chunk = chunk_size
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")
        self._json = json.JSONDecoder()
        self._buf = ""
        self._pos = 0
        self._eof = False
        self._line = 1  # line number at the start of the buffer
        self.bytes_read = 0
        self._started = False

    # ----------------------------------------------------------------- reading

    def _fill(self) -> bool:
        """Read one more chunk into the buffer; False at end of file."""
        if self._eof:
            return False
        raw = self._source.read(self._chunk)
        self.bytes_read += len(raw)
        try:
            text = self._decoder.decode(raw, final=not raw)
        except UnicodeDecodeError as exc:
            raise JsonStreamError(f"not UTF-8 text: {exc.reason}", line=self._here()) from None
        if not self._started and text:
            text = text.removeprefix("\ufeff")
            self._started = True
        if not raw:
            self._eof = True
        if self._pos > self._chunk:
            self._line += self._buf.count("\n", 0, self._pos)
            self._buf = self._buf[self._pos :]
            self._pos = 0
        self._buf += text
        return bool(raw)

    def _here(self) -> int:
        return self._line + self._buf.count("\n", 0, self._pos)

    def _peek(self) -> str:
        """Next non-whitespace character (not consumed); '' at end of file."""
        while True:
            while self._pos < len(self._buf) and self._buf[self._pos] in _WHITESPACE:
                self._pos += 1
            if self._pos < len(self._buf):
                return self._buf[self._pos]
            if not self._fill():
                return ""

    def _expect(self, allowed: str, where: str) -> str:
        char = self._peek()
        if not char:
            raise JsonStreamError(f"file ends early {where}", line=self._here(), truncated=True)
        if char not in allowed:
            wanted = " or ".join(repr(c) for c in allowed)
            raise JsonStreamError(f"expected {wanted} {where}, found {char!r}", line=self._here())
        self._pos += 1
        return char

    def _value(self, where: str) -> Any:
        """Decode one complete JSON value, reading more of the file as needed."""
        self._peek()
        while True:
            try:
                value, end = self._json.raw_decode(self._buf, self._pos)
            except json.JSONDecodeError as exc:
                if self._fill():
                    continue
                truncated = exc.pos >= len(self._buf) - 1 or "Unterminated" in exc.msg
                if truncated:
                    raise JsonStreamError(
                        f"file ends early {where}", line=self._here(), truncated=True
                    ) from None
                line = self._line + self._buf.count("\n", 0, exc.pos)
                raise JsonStreamError(f"invalid JSON {where}: {exc.msg}", line=line) from None
            # A number at the very end of the buffer may continue in the next chunk.
            if end == len(self._buf) and not self._eof and self._fill():
                continue
            self._pos = end
            return value

    # ----------------------------------------------------------------- structure

    def events(self) -> Iterator[tuple[str, str, Any]]:
        self._expect("{", "at the start of the file")
        if self._peek() == "}":
            self._pos += 1
        else:
            while True:
                key = self._value("where a key was expected")
                if not isinstance(key, str):
                    raise JsonStreamError("object key is not a string", line=self._here())
                self._expect(":", f"after key {key!r}")
                if key in self._stream_keys and self._peek() == "[":
                    yield from self._array(key)
                else:
                    yield ("key", key, self._value(f"in {key!r}"))
                if self._expect(",}", "after a top-level value") == "}":
                    break
        if self._peek():
            raise JsonStreamError("unexpected data after the JSON object", line=self._here())

    def _array(self, key: str) -> Iterator[tuple[str, str, Any]]:
        self._expect("[", f"at the start of {key!r}")
        self.arrays_seen.add(key)
        if self._peek() == "]":
            self._pos += 1
            return
        count = 0
        while True:
            where = f"in {key!r} after {count} items"
            yield ("item", key, self._value(where))
            count += 1
            if self._expect(",]", where) == "]":
                return
