"""Admin cog: `/memory stats`, `/memory context`, `/memory purge`, `/memory settings`, and the
daily retention job.

Translation only: the figures come from `memory.telemetry_stats`, the context from the
MemoryManager's report, purges from `memory.privacy`, settings from `memory.guild_settings`.
Every answer is ephemeral. Manage Server is checked here (not with Discord's default
permissions, because `/memory` also holds commands every member may use); a refusal is polite
and recorded as an `admin` event with outcome `refused`.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal
from zoneinfo import available_timezones

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.memory_group import add_subcommand, remove_subcommand
from memory.guild_settings import (
    InvalidSetting,
    describe_settings,
    load_guild_settings,
    update_guild_settings,
)
from memory.privacy import (
    PrivacyError,
    Subject,
    export_summary,
    purge_member,
    purge_preview,
    resolve_subject,
)
from memory.report import ContextReport
from memory.retention import RetentionJob
from memory.telemetry_stats import UsageRollup, build_stats, render_stats

if TYPE_CHECKING:
    from bot.runtime import Runtime

_log = logging.getLogger(__name__)

NO_PINGS = discord.AllowedMentions.none()
MESSAGE_LIMIT = 2000
# How long /memory context waits for a full build before showing the fallback it would serve.
CONTEXT_BUDGET_SECONDS = 60.0
NEEDS_MANAGE_SERVER = (
    "Sorry, only members with the **Manage Server** permission can use `/memory {command}`."
)
PURGE_REFUSED = (
    "Sorry, you can only purge what I hold about yourself; purging someone else needs the"
    " **Manage Server** permission."
)
FAILED = "Sorry, something went wrong while handling that. The error has been logged."


def _block(text: str) -> str:
    """Text inside a code block that it cannot break out of."""
    return "```\n" + text.replace("```", "`\u200b``") + "\n```"


def _fit(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {n}" for name, n in sorted(counts.items())) or "none"


def render_context(report: ContextReport) -> str:
    """The report as one Discord message: the context first, then sources, sizes, budget."""
    name = discord.utils.escape_markdown(report.member_name)
    head = f"**Memory of {name}** (id {report.user_id}), as of {report.day} ({report.timezone})"
    lines = ["Sources:"]
    for source in report.sources:
        detail = f" [{source.detail}]" if source.detail else ""
        lines.append(f"  {source.name:<8}{source.chars:>6} chars{detail}")
    budget = "full build" if report.budget_seconds is None else f"{report.budget_seconds:g}s"
    lines.append(
        f"Context: {report.chars}/{report.max_chars} chars · budget {budget}"
        f" · took {report.elapsed_ms:.0f} ms"
    )
    if report.fallback:
        lines.append(f"Fallback served: {report.fallback} (reason: {report.fallback_reason})")
    lines.append(
        f"Cache hits: {_counts(report.cache_hits)}; misses: {_counts(report.cache_misses)}"
    )
    lines.append(f"LLM calls: {report.total_llm_calls} ({_counts(report.llm_calls)})")
    tail = _block("\n".join(lines))
    room = MESSAGE_LIMIT - len(head) - len(tail) - 20
    body = _block(_fit(report.text, room)) if report.text else "*(nothing known about them)*"
    return f"{head}\n{body}\n{tail}"


async def timezone_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """IANA names containing what was typed (Discord shows at most 25)."""
    needle = current.strip().lower().replace(" ", "_")
    zones = sorted(zone for zone in available_timezones() if needle in zone.lower())
    return [app_commands.Choice(name=zone, value=zone) for zone in zones[:25]]


class AdminCog(commands.Cog, name="Admin"):
    """Admin views of the memory, privacy purges, per-server settings and retention."""

    def __init__(self, bot: commands.Bot, runtime: Runtime, *, start_retention: bool = True):
        self.bot = bot
        self.runtime = runtime
        self.rollup = UsageRollup()
        settings = runtime.settings
        self.retention = RetentionJob(
            runtime.pool,
            retention_days=settings.retention_days,
            clock=runtime.clock,
            telemetry=runtime.telemetry,
            batch_size=settings.retention_batch_size,
            interval=timedelta(hours=settings.retention_interval_hours),
        )
        self._start_retention = start_retention
        self._background: set[asyncio.Task[None]] = set()
        settings_command = app_commands.Command(
            name="settings",
            description="Show or change this server's memory settings (Manage Server)",
            callback=self.settings_command,
        )
        settings_command.autocomplete("timezone")(timezone_autocomplete)
        self._commands: list[app_commands.Command[Any, ..., Any]] = [
            app_commands.Command(
                name="stats",
                description="LLM usage, cache hit rates, queue depth, fallbacks (Manage Server)",
                callback=self.stats_command,
            ),
            app_commands.Command(
                name="context",
                description="The assembled memory of a member with its sources (Manage Server)",
                callback=self.context_command,
            ),
            app_commands.Command(
                name="purge",
                description="Delete everything the bot holds about a member",
                callback=self.purge_command,
            ),
            settings_command,
        ]

    async def cog_load(self) -> None:
        telemetry = self.runtime.telemetry
        self.rollup.seed(telemetry.recent())
        telemetry.add_sink(self.rollup)
        for command in self._commands:
            add_subcommand(self.bot.tree, command)
        if self._start_retention:
            self.retention.start()

    async def cog_unload(self) -> None:
        for command in self._commands:
            remove_subcommand(self.bot.tree, command.name)
        self.runtime.telemetry.remove_sink(self.rollup)
        await self.retention.stop()
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)

    # --- helpers ----------------------------------------------------------------------------

    def _emit(
        self, interaction: discord.Interaction, command: str, outcome: str = "ok", **fields: Any
    ) -> None:
        self.runtime.telemetry.emit(
            "admin",
            outcome=outcome,
            command=command,
            guild_id=interaction.guild_id,
            actor_id=interaction.user.id,
            **fields,
        )

    async def _refuse(self, interaction: discord.Interaction, command: str, text: str) -> None:
        self._emit(interaction, command, "refused")
        await interaction.response.send_message(text, ephemeral=True, allowed_mentions=NO_PINGS)

    async def _admin_only(self, interaction: discord.Interaction, command: str) -> bool:
        """True for members with Manage Server; everyone else gets a polite refusal."""
        if interaction.guild_id is None:
            await interaction.response.send_message("This only works in a server.", ephemeral=True)
            return False
        if interaction.permissions.manage_guild:
            return True
        await self._refuse(interaction, command, NEEDS_MANAGE_SERVER.format(command=command))
        return False

    async def _failed(self, interaction: discord.Interaction, command: str) -> None:
        _log.exception("/memory %s failed", command)
        self._emit(interaction, command, "error")
        if interaction.response.is_done():
            await interaction.followup.send(FAILED, ephemeral=True)
        else:
            await interaction.response.send_message(FAILED, ephemeral=True)

    # --- /memory stats ----------------------------------------------------------------------

    async def stats_command(self, interaction: discord.Interaction) -> None:
        if not await self._admin_only(interaction, "stats"):
            return
        try:
            writer = getattr(self.runtime, "writer", None)
            report = build_stats(
                self.rollup,
                self.runtime.telemetry.recent(),
                now=datetime.now(UTC),
                queue_depth=writer.depth if writer is not None else None,
            )
            text = _block(_fit(render_stats(report), MESSAGE_LIMIT - 40))
            await interaction.response.send_message(
                "**Memory stats**\n" + text, ephemeral=True, allowed_mentions=NO_PINGS
            )
        except Exception:
            await self._failed(interaction, "stats")
            return
        self._emit(interaction, "stats")

    # --- /memory context @member ------------------------------------------------------------

    @app_commands.describe(user="The member whose memory to show")
    async def context_command(self, interaction: discord.Interaction, user: discord.Member) -> None:
        if not await self._admin_only(interaction, "context"):
            return
        assert interaction.guild_id is not None
        manager = getattr(self.runtime, "manager", None)
        if manager is None:
            await interaction.response.send_message(
                "Memory is not available in this process.", ephemeral=True
            )
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            report = await manager.build_context(
                interaction.guild_id, user.id, budget=CONTEXT_BUDGET_SECONDS
            )
            await interaction.followup.send(
                render_context(report), ephemeral=True, allowed_mentions=NO_PINGS
            )
        except Exception:
            await self._failed(interaction, "context")
            return
        self._emit(interaction, "context", user_id=user.id)

    # --- /memory purge @member --------------------------------------------------------------

    @app_commands.describe(
        user="The member to forget entirely",
        confirm="True to delete; otherwise only show what would be deleted",
    )
    async def purge_command(
        self, interaction: discord.Interaction, user: discord.Member, confirm: bool = False
    ) -> None:
        guild_id = interaction.guild_id
        if guild_id is None:
            await interaction.response.send_message("This only works in a server.", ephemeral=True)
            return
        if user.id != interaction.user.id and not interaction.permissions.manage_guild:
            await self._refuse(interaction, "purge", PURGE_REFUSED)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        name = discord.utils.escape_markdown(user.display_name)
        try:
            try:
                subject = await resolve_subject(self.runtime.pool, guild_id, str(user.id))
            except PrivacyError:
                await interaction.followup.send(f"I hold nothing about {name}.", ephemeral=True)
                self._emit(interaction, "purge", "skipped", user_id=user.id)
                return
            if not confirm:
                preview = await purge_preview(self.runtime.pool, subject)
                await interaction.followup.send(
                    f"This would delete everything I hold about {name}:\n"
                    + _block(export_summary(preview))
                    + "\nDays they shared with others will be summarised again without them."
                    " Run `/memory purge` again with `confirm: True` to do it.",
                    ephemeral=True,
                    allowed_mentions=NO_PINGS,
                )
                self._emit(interaction, "purge", "preview", user_id=user.id)
                return
            report = await self._purge(subject, actor_id=interaction.user.id)
        except Exception:
            await self._failed(interaction, "purge")
            return
        stale = len(report.counts.stale_days)
        await interaction.followup.send(
            f"Done: I no longer hold anything about {name} ({report.counts.total} rows deleted)."
            + (f" {stale} shared day(s) will be summarised again without them." if stale else ""),
            ephemeral=True,
            allowed_mentions=NO_PINGS,
        )
        self._emit(interaction, "purge", user_id=user.id, count=report.counts.total)

    async def _purge(self, subject: Subject, *, actor_id: int) -> Any:
        writer = getattr(self.runtime, "writer", None)
        if writer is not None:
            # their messages still queued for the database must not land after the purge
            await writer.flush()
        report = await purge_member(
            self.runtime.pool,
            subject,
            default_timezone=self.runtime.settings.default_timezone,
            actor_id=actor_id,
            telemetry=self.runtime.telemetry,
        )
        manager = getattr(self.runtime, "manager", None)
        if manager is not None:
            for user_id in (subject.user_id, *report.counts.others_invalidated):
                manager.invalidate(subject.guild_id, user_id)
            if report.counts.stale_days:
                self._spawn(self._resummarize(manager, subject.guild_id, report.counts.stale_days))
        return report

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _resummarize(self, manager: Any, guild_id: int, days: list[date]) -> None:
        """Shared days again without the purged member, off the interaction's clock."""
        for day in days:
            try:
                await manager.summarize_day(guild_id, day, force=False)
            except Exception:
                _log.exception("re-summarising %s of guild %s after a purge failed", day, guild_id)

    # --- /memory settings -------------------------------------------------------------------

    @app_commands.describe(
        timezone="IANA time zone for day boundaries, e.g. Europe/Berlin",
        ignore_channel="Stop storing messages from this channel",
        unignore_channel="Store messages from this channel again",
        forget_others="Who may forget facts about someone else",
    )
    async def settings_command(
        self,
        interaction: discord.Interaction,
        timezone: str | None = None,
        ignore_channel: discord.TextChannel | None = None,
        unignore_channel: discord.TextChannel | None = None,
        forget_others: Literal["managers", "anyone"] | None = None,
    ) -> None:
        if not await self._admin_only(interaction, "settings"):
            return
        assert interaction.guild_id is not None
        guild_id = interaction.guild_id
        changes = {
            "timezone": timezone,
            "ignore_channel": ignore_channel.id if ignore_channel else None,
            "unignore_channel": unignore_channel.id if unignore_channel else None,
            "forget_others": forget_others,
        }
        changed = {key: value for key, value in changes.items() if value is not None}
        try:
            if changed:
                current = await update_guild_settings(
                    self.runtime.pool, guild_id, self.runtime.settings, **changed
                )
            else:
                current = await load_guild_settings(
                    self.runtime.pool, guild_id, self.runtime.settings
                )
        except InvalidSetting as exc:
            await interaction.response.send_message(f"Nothing changed: {exc}.", ephemeral=True)
            self._emit(interaction, "settings", "invalid")
            return
        except Exception:
            await self._failed(interaction, "settings")
            return
        self.runtime.guild_settings.store(current)  # ingestion and commands see it at once
        if self.runtime.manager is not None:  # a new timezone moves day boundaries
            self.runtime.manager.invalidate_guild(guild_id)
        title = "Settings updated" if changed else "Settings of this server"
        await interaction.response.send_message(
            f"**{title}**\n{describe_settings(current)}",
            ephemeral=True,
            allowed_mentions=NO_PINGS,
        )
        self._emit(interaction, "settings", changed=sorted(changed) or None)


async def setup(bot: commands.Bot) -> None:
    runtime = getattr(bot, "runtime", None)
    if runtime is None:
        raise RuntimeError("the admin cog needs bot.runtime (see bot.client.MemoryBot)")
    await bot.add_cog(AdminCog(bot, runtime))
