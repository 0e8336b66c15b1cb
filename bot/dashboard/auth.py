"""Who may see the dashboard: whoever opened the printed link (as with Jupyter).

The link carries a random token; trading it in sets a session cookie signed with a key that
lives only in this process (HMAC-SHA256), so a restart logs everyone out and nothing secret is
ever stored. Every other request without a valid cookie gets 401 and the login page. Forms
carry a per-session token too (the cookie is SameSite=Strict as well), so another site cannot
make a logged-in browser take an action; each form token works once (a confirmation page
re-posted, or a token copied out of a page, changes nothing a second time).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass, field

COOKIE = "memorybot_dashboard"
# A session lasts a working day; the link works again after that.
SESSION_SECONDS = 12 * 3600
# Confirmation pages open at once whose form may still be sent (the oldest is dropped first).
OPEN_FORMS = 256


@dataclass(frozen=True)
class Sessions:
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    key: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)
    # Form tokens issued and not used yet (insertion order: oldest first).
    _open: dict[str, None] = field(default_factory=dict, repr=False, compare=False)

    def token_ok(self, offered: str | None) -> bool:
        return bool(offered) and hmac.compare_digest(str(offered), self.token)

    def _sign(self, payload: str) -> str:
        return hmac.new(self.key, payload.encode(), hashlib.sha256).hexdigest()

    def issue(self, *, now: float | None = None) -> str:
        """A new session's cookie value: `expires.nonce.signature`."""
        expires = int((now or time.time()) + SESSION_SECONDS)
        payload = f"{expires}.{secrets.token_hex(8)}"
        return f"{payload}.{self._sign(payload)}"

    def valid(self, cookie: str | None, *, now: float | None = None) -> bool:
        if not cookie or cookie.count(".") != 2:
            return False
        payload, _, signature = cookie.rpartition(".")
        if not hmac.compare_digest(signature, self._sign(payload)):
            return False
        expires = payload.split(".", 1)[0]
        return expires.isdigit() and int(expires) > (now or time.time())

    def form_token(self, cookie: str) -> str:
        """A new hidden field for one form of this session, good for one use."""
        nonce = secrets.token_hex(8)
        token = f"{nonce}.{self._sign(f'form:{cookie}:{nonce}')[:32]}"
        self._open[token] = None
        while len(self._open) > OPEN_FORMS:
            del self._open[next(iter(self._open))]
        return token

    def form_ok(self, cookie: str | None, offered: str | None) -> bool:
        """True once for a token this session was given; it is used up by the check."""
        if not cookie or not offered:
            return False
        nonce, _, signature = str(offered).partition(".")
        expected = self._sign(f"form:{cookie}:{nonce}")[:32]
        if not hmac.compare_digest(expected, signature):
            return False
        return self._open.pop(str(offered), False) is None
