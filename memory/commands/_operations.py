"""The memory command operations: remember, forget, undo and whois once the command is
parsed, with member resolution, the permission rules and the wording of each answer.

`MemoryCommands` (`_memory_commands.py`) parses, routes and rate-limits what a member said and
holds one `CommandOperations` to act on it.
"""

from __future__ import annotations

import logging
import re
from dataclasses import KW_ONLY, InitVar, dataclass, replace

import asyncpg

from db.consent import is_remembered
from db.members import add_alias, get_members, remove_alias
from memory.commands._types import (
    CommandContext,
    CommandResult,
    CommandsConfig,
    MemorySource,
    PolicySource,
    Target,
    may_change_memory,
)
from memory.commands._wording import CommandReplies
from memory.core.models import Member
from memory.core.telemetry import Telemetry
from memory.core.text import split_sentences
from memory.facts import FactChange, FactError, FactService, prompt_member
from memory.guilds import GuildSettingsCache
from memory.language import contradicts, identity_alias, third_person
from memory.llm import LLMError, MemoryLLM
from memory.llm import third_person as claim_sentence
from memory.members import USER_MENTION, MemberResolver, Resolution, describe

_log = logging.getLogger(__name__)


@dataclass(eq=False)
class CommandOperations:
    """Acting on a parsed command: who it is about, whether the author may, what is stored,
    and the answer (every outcome reported to telemetry)."""

    # `memories`: what-do-you-know answers from the full context (facts plus summaries);
    # `guild_settings`: each guild's own forget policy (the global default without it).
    pool: asyncpg.Pool
    facts: FactService
    llm: MemoryLLM
    settings: CommandsConfig
    _: KW_ONLY
    telemetry: Telemetry
    resolver: InitVar[MemberResolver | None] = None
    memories: MemorySource | None = None
    guild_settings: GuildSettingsCache | None = None

    def __post_init__(self, resolver: MemberResolver | None) -> None:
        self._resolver = resolver or MemberResolver(self.pool)
        self._say = CommandReplies()

    # --- operations -------------------------------------------------------------------------

    async def remember(
        self, ctx: CommandContext, target: Target | Resolution, statement: str
    ) -> CommandResult:
        about = await self._about(ctx, "remember", target, statement)
        if isinstance(about, CommandResult):
            return about
        member, query = about
        if not await is_remembered(self.pool, ctx.guild_id, member.user_id):
            reply = self._say.not_remembered(member)
            return self.done(ctx, "remember", "opted_out", reply, member)
        text = await self._prepare(ctx, statement)
        attributed = await self._contradicts_others(ctx, member, text)
        if attributed:
            # Saying the opposite of someone's fact is not a way to erase it: without the
            # right to change their memory it is kept as this member's claim.
            text = f"{ctx.author.display_name} says {text}"
        change = await self._stored(ctx, "remember", member, text)
        if isinstance(change, CommandResult):
            return change
        alias = None if attributed else identity_alias(text, [query, *member.names])
        if alias and alias.lower() not in {name.lower() for name in member.names}:
            await add_alias(self.pool, ctx.guild_id, member.user_id, alias)
        else:
            alias = None
        if attributed:
            reply = self._say.attributed(member, ctx.author)
        else:
            reply = self._say.remembered(member, is_self=member.user_id == ctx.author.user_id)
        if alias:
            reply += " " + self._say.alias_added(member, alias)
        if change.dropped:
            reply += " " + self._say.let_go(self.facts.max_chars, change.dropped)
        outcome = "attributed" if attributed else "ok"
        return self.done(ctx, "remember", outcome, reply, member)

    async def _contradicts_others(self, ctx: CommandContext, member: Member, text: str) -> bool:
        """The statement contradicts a stored fact about someone else whose memory the author
        may not change (the rule forgetting about others follows)."""
        if member.user_id == ctx.author.user_id or await self._may_change(ctx, member):
            return False
        blob = await self.facts.blob(ctx.guild_id, member.user_id)
        if not blob:
            return False
        names = list(member.names)
        new = claim_sentence(text, member.display_name, names[1:])
        return any(contradicts(sentence, new, names) for sentence in split_sentences(blob))

    async def forget(
        self, ctx: CommandContext, target: Target | Resolution, statement: str
    ) -> CommandResult:
        about = await self._about(ctx, "forget", target, statement, changing=True)
        if isinstance(about, CommandResult):
            return about
        member, query = about
        text = await self._prepare(ctx, statement)
        member, unaliased = await self._unalias(ctx, member, text, query)
        change = await self._stored(ctx, "forget", member, text)
        if isinstance(change, CommandResult):
            return change
        if change.found or unaliased:
            return self.done(ctx, "forget", "ok", self._say.forgotten(member), member)
        return self.done(ctx, "forget", "not_found", self._say.not_found(member), member)

    async def _unalias(
        self, ctx: CommandContext, member: Member, text: str, query: str
    ) -> tuple[Member, bool]:
        """ "Forget that alice is Sergey": Sergey stops being one of her names (the directory),
        and the forget goes on without it, so every sentence saying it is dropped."""
        alias = identity_alias(text, [query, *member.names])
        held = {name.lower(): name for name in member.aliases}
        if alias is None or alias.lower() not in held:
            return member, False
        await remove_alias(self.pool, ctx.guild_id, member.user_id, alias)
        kept = tuple(name for name in member.aliases if name.lower() != alias.lower())
        return replace(member, aliases=kept), True

    async def undo(self, ctx: CommandContext, target: Target) -> CommandResult:
        about = await self._about(ctx, "undo", target, None, changing=True)
        if isinstance(about, CommandResult):
            return about
        member, _ = about
        change = await self.facts.undo(
            ctx.guild_id,
            member.user_id,
            actor_id=ctx.author.user_id,
            command="undo",
            source_message_id=ctx.message_id,
        )
        if change is None:
            return self.done(ctx, "undo", "nothing", self._say.nothing_to_undo(member), member)
        return self.done(ctx, "undo", "ok", self._say.undone(member, change.new_blob), member)

    async def whois(self, ctx: CommandContext, target: Target | Resolution) -> CommandResult:
        about = await self._about(ctx, "whois", target, None)
        if isinstance(about, CommandResult):
            return about
        member, _ = about
        if not await is_remembered(self.pool, ctx.guild_id, member.user_id):
            return self.done(ctx, "whois", "opted_out", self._say.not_remembered(member), member)
        memory = ""
        if self.memories is not None:
            memory = (await self.memories(ctx.guild_id, member.user_id) or "").strip()
        if not memory:  # no context could be built: the stored facts still answer
            memory = await self.facts.blob(ctx.guild_id, member.user_id)
        if not memory:
            return self.done(ctx, "whois", "empty", self._say.know_nothing(member), member)
        try:
            answer = await self.llm.whois(
                guild_id=ctx.guild_id,
                member=prompt_member(member),
                memory=memory,
                question=ctx.text,
                asker_name=ctx.author.display_name,
                bot_name=self.settings.bot_name,
            )
        except LLMError as exc:
            _log.warning("whois phrasing failed, answering verbatim: %s", exc)
            answer = ""
        outcome = "ok" if answer else "verbatim"
        reply = answer or self._say.verbatim(member, memory)
        return self.done(ctx, "whois", outcome, reply, member)

    async def _about(
        self,
        ctx: CommandContext,
        kind: str,
        target: Target | Resolution,
        statement: str | None,
        *,
        changing: bool = False,
    ) -> tuple[Member, str] | CommandResult:
        """The member a command is about and the name it was asked by; or the answer when no
        one (or more than one) answers to it, or when the command changes their memory
        (`changing`) and the author may not."""
        resolution = target
        if not isinstance(resolution, Resolution):
            resolution = await self.resolve(ctx, resolution, statement)
        if not resolution.found:
            return self._unresolved(ctx, kind, resolution)
        member = resolution.member
        assert member is not None
        if changing and not await self._may_change(ctx, member):
            return self._refuse(ctx, kind, member)
        return member, resolution.query

    async def _stored(
        self, ctx: CommandContext, kind: str, member: Member, text: str
    ) -> FactChange | CommandResult:
        """What remembering (or forgetting) `text` changed, or the answer when the facts
        service refused it."""
        write = self.facts.remember if kind == "remember" else self.facts.forget
        try:
            return await write(
                ctx.guild_id,
                member,
                text,
                actor_id=ctx.author.user_id,
                command=_command_text(ctx),
                source_message_id=ctx.message_id,
            )
        except FactError as exc:
            return self._fact_error(ctx, kind, member, exc)

    async def resolve(
        self, ctx: CommandContext, target: Target | None, statement: str | None
    ) -> Resolution:
        """The member a command is about: given, named, or the subject of the statement."""
        if isinstance(target, Member):
            return Resolution(str(target.user_id), member=target)
        if target:
            return await self._resolver.resolve(
                ctx.guild_id, target, author=ctx.author, known=ctx.known
            )
        return await self._resolver.resolve_subject(
            ctx.guild_id, statement or "", author=ctx.author, known=ctx.known
        )

    async def _prepare(self, ctx: CommandContext, statement: str) -> str:
        """Statements are stored as text about named people: "I"/"my" become the author's name
        and mentions become names (ids change meaning nowhere, but names read better)."""
        text = third_person(statement.strip(), ctx.author.display_name, first_person_only=True)
        ids = {int(value) for value in USER_MENTION.findall(text)}
        if not ids:
            return text
        names = {**ctx.known, **await get_members(self.pool, ctx.guild_id, sorted(ids))}

        def name(match: re.Match[str]) -> str:
            member = names.get(int(match.group(1)))
            return member.display_name if member else match.group(0)

        return USER_MENTION.sub(name, text)

    async def _may_change(self, ctx: CommandContext, member: Member) -> bool:
        policy: PolicySource = self.settings
        if self.guild_settings is not None:
            policy = await self.guild_settings.get(ctx.guild_id)
        return may_change_memory(
            policy,
            author_id=ctx.author.user_id,
            target_id=member.user_id,
            can_manage_guild=ctx.can_manage_guild,
        )

    def _refuse(self, ctx: CommandContext, kind: str, member: Member) -> CommandResult:
        _log.info(
            "refused %s by %s about %s in guild %s",
            kind,
            ctx.author.user_id,
            member.user_id,
            ctx.guild_id,
        )
        return self.done(ctx, kind, "refused", self._say.refused(kind, member), member)

    def _unresolved(self, ctx: CommandContext, kind: str, resolution: Resolution) -> CommandResult:
        if resolution.ambiguous:
            reply = self._say.which_one(
                resolution.query, [describe(m) for m in resolution.candidates]
            )
            return self.done(ctx, kind, "ambiguous", reply)
        return self.done(ctx, kind, "unknown", self._say.unknown(resolution.query))

    def _fact_error(
        self, ctx: CommandContext, kind: str, member: Member, exc: FactError
    ) -> CommandResult:
        _log.warning("%s about %s not done: %s", kind, member.user_id, exc)
        outcome, reply = self._say.fact_error(member, exc)
        return self.done(ctx, kind, outcome, reply, member)

    def done(
        self,
        ctx: CommandContext,
        kind: str,
        outcome: str,
        reply: str,
        member: Member | None = None,
    ) -> CommandResult:
        target_id = member.user_id if member else None
        self.telemetry.emit(
            "command",
            outcome=outcome,
            kind=kind,
            via=ctx.via,
            guild_id=ctx.guild_id,
            user_id=ctx.author.user_id,
            target_id=target_id,
        )
        # Front ends split the reply into Discord messages (memory.core.split.reply_parts).
        return CommandResult(reply, kind, outcome, target_id)


def _command_text(ctx: CommandContext) -> str:
    return ctx.text[:500]
