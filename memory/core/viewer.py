"""Who is reading: the channels whose words a search or a reply may carry.

A member must never receive through the bot words from a channel they cannot read. Every
search takes a `Viewer`; the Discord adapter builds it from permission resolution (the asking
member's readable channels, narrowed to what every reader of the reply's channel may read), the
admin CLI uses `Viewer.everything()`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Viewer:
    """The reader of a search's results.

    `channel_ids` is the set of channel (and thread) ids whose messages may be returned; None
    means every channel of the guild (the admin CLI only). `user_id` is the asking member, when
    there is one (their forgotten statements are excluded like everyone's).
    """

    user_id: int | None = None
    channel_ids: frozenset[int] | None = None

    @classmethod
    def everything(cls) -> Viewer:
        """An admin's view: every channel (the CLI's `recall` says so)."""
        return cls(None, None)

    @classmethod
    def of_channels(cls, user_id: int | None, channel_ids: frozenset[int] | set[int]) -> Viewer:
        return cls(user_id, frozenset(channel_ids))

    def may_read(self, channel_id: int | None) -> bool:
        """Whether a message of `channel_id` may reach this reader (None: not a channel's
        message, such as a summary built from public channels)."""
        if self.channel_ids is None or channel_id is None:
            return True
        return channel_id in self.channel_ids
