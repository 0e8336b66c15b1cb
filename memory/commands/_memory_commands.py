"""Memory commands without Discord: remember, forget, what-do-you-know and undo, as replies.

Both front ends use this: the facts cog (freeform messages and slash commands) and the console.
It owns everything between "a member said this" and "the bot answers that": intent, member
resolution, permissions, rate limiting and the wording of every answer.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Sequence

from memory.commands._limit import WRITES, Admission, CommandRateLimiter
from memory.commands._operations import CommandOperations
from memory.commands._types import (
    CommandContext,
    CommandResult,
    CommandsConfig,
    RepliedMessage,
    Target,
)
from memory.commands._wording import CommandReplies
from memory.core.clock import Clock
from memory.core.models import Member
from memory.core.telemetry import Telemetry
from memory.language import ParsedCommand, Prefilter, asks_who_is, prefilter, third_person
from memory.llm import LLMError, MemoryLLM
from memory.members import Resolution

_log = logging.getLogger(__name__)


class MemoryCommands:
    """Turns memory commands into replies. Discord-free; every entry point is rate limited."""

    def __init__(
        self,
        operations: CommandOperations,
        llm: MemoryLLM,
        settings: CommandsConfig,
        *,
        telemetry: Telemetry,
        clock: Clock,
    ) -> None:
        """`operations` act on a parsed command; this routes (with `llm`) and rate-limits."""
        self._ops = operations
        self.facts = operations.facts
        self._llm = llm
        self._settings = settings
        self._telemetry = telemetry
        self._limiter = CommandRateLimiter(settings.commands_per_minute, clock=clock)
        self._say = CommandReplies()

    # --- freeform --------------------------------------------------------------------------

    async def handle(
        self,
        guild_id: int,
        author: Member,
        text: str,
        replied_to: RepliedMessage | None = None,
        author_can_manage_guild: bool = False,
        message_id: int | None = None,
        mentions: Sequence[Member] = (),
        decision: Prefilter | None = None,
    ) -> CommandResult | None:
        """Answer a message addressed to the bot (addressing removed), or None when it is not a
        memory command, so the ordinary reply path can take it (`decision`: the pre-filter's,
        when the caller already ran it)."""
        if decision is None:
            decision = prefilter(text, has_reply=replied_to is not None)
        if decision.ignore:
            return None
        if decision.parsed is None and self._limiter.saturated(guild_id, author.user_id):
            return None  # no routing call for someone writing fast: the chat path answers
        ctx = CommandContext(
            guild_id,
            author,
            author_can_manage_guild,
            message_id,
            text,
            {member.user_id: member for member in mentions},
            via="freeform",
        )
        parsed, routed = decision.parsed, False
        if parsed is None:
            parsed, routed = await self._route(ctx, text, replied_to), True
            if parsed is None:
                return None
        if parsed.kind in WRITES:
            admission = self._limiter.admit(guild_id, author.user_id)
            if admission is not Admission.ALLOWED:
                return self._limited(guild_id, author, admission)
        return await self._dispatch(ctx, parsed, replied_to, routed=routed)

    # --- slash commands (also used by the console) -----------------------------------------

    async def remember(
        self,
        guild_id: int,
        author: Member,
        target: Target,
        statement: str,
        *,
        can_manage_guild: bool = False,
        message_id: int | None = None,
    ) -> CommandResult:
        ctx = CommandContext(
            guild_id, author, can_manage_guild, message_id, f"/remember {statement}"
        )
        return await self._admitted(ctx, self._ops.remember(ctx, target, statement))

    async def forget(
        self,
        guild_id: int,
        author: Member,
        target: Target,
        statement: str,
        *,
        can_manage_guild: bool = False,
        message_id: int | None = None,
    ) -> CommandResult:
        ctx = CommandContext(guild_id, author, can_manage_guild, message_id, f"/forget {statement}")
        return await self._admitted(ctx, self._ops.forget(ctx, target, statement))

    async def whois(
        self, guild_id: int, author: Member, target: Target, *, question: str | None = None
    ) -> CommandResult:
        ctx = CommandContext(guild_id, author, False, None, question or "/whois")
        return await self._ops.whois(ctx, target)  # a read: not counted by COMMANDS_PER_MINUTE

    async def undo(
        self,
        guild_id: int,
        author: Member,
        target: Target,
        *,
        can_manage_guild: bool = False,
        message_id: int | None = None,
    ) -> CommandResult:
        ctx = CommandContext(guild_id, author, can_manage_guild, message_id, "/memory undo")
        return await self._admitted(ctx, self._ops.undo(ctx, target))

    async def slash(
        self,
        kind: str,
        guild_id: int,
        author: Member,
        target: Target,
        fact: str | None = None,
        *,
        can_manage_guild: bool = False,
    ) -> CommandResult:
        """One slash-style command by name (`remember`, `forget`, `whois`, `undo`): the shape
        both the Discord cog and the console use."""
        if kind == "remember":
            return await self.remember(
                guild_id, author, target, fact or "", can_manage_guild=can_manage_guild
            )
        if kind == "forget":
            return await self.forget(
                guild_id, author, target, fact or "", can_manage_guild=can_manage_guild
            )
        if kind == "whois":
            return await self.whois(guild_id, author, target)
        if kind == "undo":
            return await self.undo(guild_id, author, target, can_manage_guild=can_manage_guild)
        raise ValueError(f"unknown memory command {kind!r}")

    # --- dispatch ---------------------------------------------------------------------------

    def _limited(self, guild_id: int, author: Member, admission: Admission) -> CommandResult:
        self._telemetry.emit(
            "command", outcome="rate_limited", guild_id=guild_id, user_id=author.user_id
        )
        if admission is Admission.SILENT:
            return CommandResult(None, "command", "rate_limited")
        wait = self._limiter.retry_after(guild_id, author.user_id)
        return CommandResult(self._say.slow_down(wait), "command", "rate_limited")

    async def _admitted(self, ctx: CommandContext, work: Awaitable[CommandResult]) -> CommandResult:
        """Run a write (remember, forget, undo) if the member's COMMANDS_PER_MINUTE allows."""
        admission = self._limiter.admit(ctx.guild_id, ctx.author.user_id)
        if admission is not Admission.ALLOWED:
            work.close()  # type: ignore[attr-defined]
            # A slash command must always be answered, so it is never silent.
            return self._limited(ctx.guild_id, ctx.author, Admission.WARN)
        return await work

    async def _dispatch(
        self,
        ctx: CommandContext,
        parsed: ParsedCommand,
        replied_to: RepliedMessage | None,
        *,
        routed: bool,
    ) -> CommandResult | None:
        target: Target | None = parsed.target
        statement = parsed.statement
        if parsed.kind in ("remember_this", "forget_this"):
            if replied_to is None or not replied_to.content.strip():
                return self._ops.done(
                    ctx, parsed.kind, "invalid", self._say.reply_needed(parsed.kind)
                )
            statement = self._replied_statement(replied_to)
            if target is None:
                target = (
                    str(f"<@{replied_to.author_id}>") if replied_to.author_id is not None else "me"
                )
        if parsed.kind != "whois" and not statement:
            return self._ops.done(ctx, parsed.kind, "invalid", self._say.what_to(parsed.kind))
        resolution = await self._ops.resolve(ctx, target, statement)
        if not resolution.found and not resolution.ambiguous and not routed:
            # The rules read a name nobody has: maybe they misread the sentence; ask the router.
            rerouted = await self._route(ctx, ctx.text, replied_to)
            if rerouted is None:
                return None
            if rerouted != parsed:
                return await self._dispatch(ctx, rerouted, replied_to, routed=True)
        if parsed.kind == "whois" and _asks_who(ctx, resolution):
            return None  # "who is allergic to wasps?" asks about what was said: a reply searches
        kind = "remember" if parsed.kind.startswith("remember") else parsed.kind
        kind = "forget" if kind.startswith("forget") else kind
        if kind == "whois":
            return await self._ops.whois(ctx, resolution)
        assert statement is not None
        if kind == "remember":
            return await self._ops.remember(ctx, resolution, statement)
        return await self._ops.forget(ctx, resolution, statement)

    async def _route(
        self, ctx: CommandContext, text: str, replied_to: RepliedMessage | None
    ) -> ParsedCommand | None:
        try:
            intent = await self._llm.route(
                text=text,
                bot_name=self._settings.bot_name,
                author_name=ctx.author.display_name,
                replied_to=replied_to.content if replied_to else None,
                guild_id=ctx.guild_id,
            )
        except LLMError as exc:
            self._telemetry.emit(
                "route", outcome="error", guild_id=ctx.guild_id, error=str(exc)[:200]
            )
            return None
        self._telemetry.emit("route", guild_id=ctx.guild_id, kind=intent.kind)
        if intent.kind == "none":
            return None
        statement = (intent.statement or "").strip() or None
        target = (intent.target or "").strip() or None
        if intent.kind == "remember_this":
            return ParsedCommand("remember_this", target=target)
        if intent.kind == "forget" and statement is None and replied_to is not None:
            return ParsedCommand("forget_this", target=target)
        return ParsedCommand(intent.kind, target=target, statement=statement)

    # --- helpers ----------------------------------------------------------------------------

    def _replied_statement(self, replied: RepliedMessage) -> str:
        """First-person words in a quoted message are about whoever wrote it."""
        content = replied.content.strip()
        if not replied.author_name:
            return content
        return third_person(content, replied.author_name, first_person_only=True)


def _asks_who(ctx: CommandContext, resolution: Resolution) -> bool:
    """A freeform "who is ..." naming nobody here is a question for the reply path (which
    searches what was said), not a whois of an unknown member."""
    return (
        ctx.via == "freeform"
        and not resolution.found
        and not resolution.ambiguous
        and asks_who_is(ctx.text)
    )
