"""A local port nothing listens on, and a count of the connections the real SDKs try on it.

The count wraps the transport of httpx2 (the openai SDK's HTTP stack, the network edge): every
request the SDK sends goes through it, so the count is the connection attempts on the port.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest


def closed_port() -> int:
    """A loopback port that refuses connections (bound once, then released unused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ConnectionCount:
    def __init__(self) -> None:
        self.attempts: list[str] = []

    def __len__(self) -> int:
        return len(self.attempts)


@pytest.fixture
def dead_url() -> str:
    return f"http://127.0.0.1:{closed_port()}/v1"


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> Iterator[ConnectionCount]:
    count = ConnectionCount()
    original = httpx2.AsyncHTTPTransport.handle_async_request

    async def counted(self: httpx2.AsyncHTTPTransport, request: httpx2.Request) -> Any:
        count.attempts.append(str(request.url))
        return await original(self, request)

    monkeypatch.setattr(httpx2.AsyncHTTPTransport, "handle_async_request", counted)
    yield count
