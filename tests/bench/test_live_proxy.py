"""The live run's recording proxy when a caller leaves before the model answers: `make test-llm`
once failed after every flow had passed, because a CLI command that had exited left a request
waiting on the model, and stopping the proxy waited for it past its own deadline."""

from __future__ import annotations

import asyncio
import socket
import threading

from aiohttp import web

from bench.live_proxy import recording, serving

WAIT_FOR_UPSTREAM = 30.0


def _hanging_model(reached: threading.Event) -> web.Application:
    """A model server that takes every request and never answers it."""

    async def chat(_: web.Request) -> web.Response:
        reached.set()
        await asyncio.Event().wait()
        raise AssertionError("never answered")

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    return app


def _ask_and_leave(port: int, reached: threading.Event) -> None:
    """What an exiting CLI does: send a request, then go away before the answer."""
    body = b'{"messages": []}'
    with socket.create_connection(("127.0.0.1", port)) as caller:
        caller.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        assert reached.wait(WAIT_FOR_UPSTREAM), "the proxy never forwarded the request"


def test_the_proxy_stops_while_a_request_it_forwarded_is_still_unanswered() -> None:
    reached = threading.Event()
    with serving(_hanging_model(reached)) as model_port:
        with recording(f"http://127.0.0.1:{model_port}/v1") as proxy:
            _ask_and_leave(proxy.port, reached)
        # Leaving the block above raised nothing: the unanswered request was dropped.
        assert proxy.exchanges == [], "an unanswered request is not an exchange"
