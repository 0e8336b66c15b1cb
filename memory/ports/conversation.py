"""What the bot says: the answer to a message addressed to it. (Every message it hears joins the
channel's window through `ChannelWindow`, memory/ports/chat.py; its own answers join it here.)

The replies cog and the console see only this face. `answer` is the one use case behind every
message addressed to the bot, in this order: a memory command (remember, forget, ...); an
opted-out member hears only that they opted out (so never a catch-up nor a reply); "what did I
miss?"; the reply rate limits; a reply composed by `ReplyComposer.compose`, which then joins
the channel's window. The front ends only translate their messages in and the answer out.
"""

from __future__ import annotations

import logging

from cachetools import LRUCache

from memory.commands import MemoryCommands
from memory.core.keyed_lock import KeyedLock
from memory.core.ratelimit import Admission
from memory.core.split import reply_parts
from memory.core.telemetry import Telemetry
from memory.core.viewer import Viewer
from memory.episodes import EpisodeService, asks_catch_up
from memory.guilds import GuildSettingsCache
from memory.language import prefilter
from memory.members import MemberConsent
from memory.ports.answers import (
    APOLOGY,
    COMMAND_FAILED,
    NOT_REMEMBERED,
    OPT_IN_HINT,
    SLOW_DOWN,
    Addressed,
    Answer,
    AnswerKind,
    Outlet,
)
from memory.replies import IncomingMessage, reader_of

# From its own module (not the package face) so the reply path can be followed by name from
# the cog to the composer; pyproject.toml allows this one import.
from memory.replies._composer import ReplyComposer

_log = logging.getLogger(__name__)


class Conversation:
    """Answers to members; each answer sent joins its channel's window."""

    def __init__(
        self,
        composer: ReplyComposer,
        guild_settings: GuildSettingsCache,
        consent: MemberConsent,
        commands: MemoryCommands,
        episodes: EpisodeService,
        telemetry: Telemetry,
    ) -> None:
        self._composer = composer
        self._guild_settings = guild_settings
        self._consent = consent
        self._commands = commands
        self._episodes = episodes
        self._telemetry = telemetry
        # One reply at a time per channel, so each is written after the last one was heard.
        self._turns = KeyedLock()
        # Members told how to opt in (once each, per process).
        self._hinted: LRUCache[tuple[int, int], bool] = LRUCache(maxsize=50_000)

    @property
    def bot_user_id(self) -> int | None:
        return self._composer.bot_user_id

    @bot_user_id.setter
    def bot_user_id(self, user_id: int | None) -> None:
        """Known once the bot has logged in; its own messages are then told apart."""
        self._composer.bot_user_id = user_id

    async def answer(self, addressed: Addressed, outlet: Outlet) -> Answer:
        """Answer a message addressed to the bot, through `outlet`; what was said."""
        message = addressed.message
        said = await self._command(addressed, outlet)
        if said is not None:
            return await _shown(Answer(AnswerKind.COMMAND, said), outlet)
        consent = await self._consent.consent(message.guild_id, message.author_id)
        if consent is not None and consent.state == "out":
            text = NOT_REMEMBERED.format(optin=outlet.optin_command)
            return await _shown(Answer(AnswerKind.NOT_REMEMBERED, text), outlet)
        if asks_catch_up(message.content):
            text = await self._episodes.catch_up(
                message.guild_id, message.author_id, reader_of(message)
            )
            return await _shown(Answer(AnswerKind.CATCH_UP, text), outlet)
        admission = self._composer.admit(message)
        if admission is Admission.SILENT:
            return Answer(AnswerKind.SILENT)
        if admission is Admission.WARN:
            return await _shown(Answer(AnswerKind.SLOW_DOWN, SLOW_DOWN), outlet)
        async with self._turns.hold((message.guild_id, message.channel_id)):
            answer = Answer(AnswerKind.REPLY, await self._reply(message, outlet))
            sent_id = await outlet.send(answer)
            if sent_id is not None:
                await self._heard_answer(message, answer.text, sent_id)
        return answer

    async def _command(self, addressed: Addressed, outlet: Outlet) -> str | None:
        """A memory command's answer ('' when it says nothing); None when it is not one."""
        message = addressed.message
        decision = prefilter(message.content, has_reply=addressed.replied_to is not None)
        if decision.ignore:
            return None
        try:
            async with outlet.working(show=True):
                result = await self._commands.handle(
                    message.guild_id,
                    addressed.author,
                    message.content,
                    replied_to=addressed.replied_to,
                    author_can_manage_guild=addressed.can_manage_guild,
                    message_id=message.message_id,
                    mentions=addressed.mentions,
                    decision=decision,
                )
        except Exception:
            _log.exception("memory command failed: message %s", message.message_id)
            self._telemetry.emit(
                "command", outcome="error", guild_id=message.guild_id, user_id=message.author_id
            )
            return COMMAND_FAILED
        return None if result is None else result.reply or ""

    async def _reply(self, message: IncomingMessage, outlet: Outlet) -> str:
        """A reply composed from memory (an apology when none could be), with the opt-in hint."""
        try:
            # In a burst no typing indicator: its requests would queue behind the answers.
            async with outlet.working(show=not self._composer.busy):
                result = await self._composer.compose(message)
            text = result.text if reply_parts(result.text) else APOLOGY
            return await self._with_opt_in_hint(message, text, outlet)
        except Exception as exc:
            _log.exception("reply to message %s failed", message.message_id)
            self._telemetry.emit(
                "reply",
                outcome="error",
                guild_id=message.guild_id,
                channel_id=message.channel_id,
                error=f"{type(exc).__name__}: {exc}"[:300],
            )
            return APOLOGY

    async def _with_opt_in_hint(self, message: IncomingMessage, text: str, outlet: Outlet) -> str:
        """In a server that stores only members who opted in, the first reply to a member who
        did not says once how to."""
        key = (message.guild_id, message.author_id)
        if self._hinted.get(key) or self._guild_settings.peek(key[0]).storage != "opted-in":
            return text
        consent = await self._consent.consent(*key)
        if consent is not None and consent.state == "in":
            return text
        self._hinted[key] = True
        return f"{text}\n{OPT_IN_HINT.format(optin=outlet.optin_command)}"

    async def _heard_answer(self, message: IncomingMessage, text: str, sent_id: int) -> None:
        """The bot's reply joins the channel's window, as an answer to the message."""
        if self.bot_user_id is None:
            return
        await self._composer.keeper.observe(
            IncomingMessage(
                guild_id=message.guild_id,
                channel_id=message.channel_id,
                message_id=sent_id,
                author_id=self.bot_user_id,
                author_name=self._composer.config.bot_name,
                content=text,
                viewer=Viewer.of_channels(self.bot_user_id, {message.channel_id}),
                reply_to_id=message.message_id,
            ),
            from_bot=True,
        )


async def _shown(answer: Answer, outlet: Outlet) -> Answer:
    if answer.text:
        await outlet.send(answer)
    return answer
