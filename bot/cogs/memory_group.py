"""The `/memory` command group: undo for members; stats, context, purge and settings for admins.

Translation only: every answer comes from the memory front door (`Operations.stats_text`, the
context report renderer, the privacy desk, the guild settings). Answers are ephemeral and ping
nobody. Manage Server is checked per command (`bot.checks`), because the group also holds
commands every member may use; failures are answered by the errors cog.
"""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.checks import manage_server_only
from bot.convert import to_member
from bot.interactions import MESSAGE_LIMIT, NO_PINGS, code_block, fit, followup_in_parts, respond
from memory.core.ratelimit import Admission, RateLimiter
from memory.core.text import plural
from memory.ports import (
    FrontDoor,
    InvalidSetting,
    PrivacyError,
    describe_mine,
    describe_settings,
    export_summary,
    to_json,
)

if TYPE_CHECKING:
    from bot.client import MemoryBot

from bot.cogs.memory_group_ui import (
    NOTHING_CHANGED,
    OPT_OUT_EXPLAINED,
    ConfirmOptOut,
    render_context,
    timezone_autocomplete,
)

_log = logging.getLogger(__name__)

ALLOWED = Admission.ALLOWED

# How long /memory context waits for a full build before showing the fallback it would serve.
CONTEXT_BUDGET_SECONDS = 60.0
MINE_LIMIT = 2  # /memory mine per member per minute: it exports everything
PURGE_REFUSED = (
    "Sorry, you can only purge what I hold about yourself; purging someone else needs the"
    " **Manage Server** permission."
)


@app_commands.guild_only()
class MemoryGroupCog(
    commands.GroupCog,
    group_name="memory",
    group_description="What the bot remembers about members",
):
    """`/memory ...`: member controls and admin views of the memory."""

    def __init__(self, bot: commands.Bot | commands.AutoShardedBot, memory: FrontDoor) -> None:
        self.bot = bot
        self.memory = memory
        self._mine_limit = RateLimiter(MINE_LIMIT, clock=memory.clock)
        super().__init__()

    def _emit(
        self, interaction: discord.Interaction, command: str, outcome: str = "ok", **fields: Any
    ) -> None:
        self.memory.telemetry.emit(
            "admin",
            outcome=outcome,
            command=command,
            guild_id=interaction.guild_id,
            actor_id=interaction.user.id,
            **fields,
        )

    # --- /memory undo -----------------------------------------------------------------------

    @app_commands.command(
        name="undo",
        description="Restore the previous version of what the bot knows about a member",
    )
    @app_commands.describe(user="The member whose memory to restore")
    async def undo(self, interaction: discord.Interaction, user: discord.Member) -> None:
        assert interaction.guild_id is not None
        await interaction.response.defer(thinking=True)
        result = await self.memory.commands.slash(
            "undo",
            interaction.guild_id,
            to_member(interaction.user, interaction.guild_id),
            to_member(user, interaction.guild_id),
            can_manage_guild=interaction.permissions.manage_guild,
        )
        await followup_in_parts(interaction, result.reply or "")

    # --- /memory mine, optout, optin (the member's own controls) ------------------------------

    @app_commands.command(name="mine", description="What the bot keeps about you (only you see it)")
    async def mine(self, interaction: discord.Interaction) -> None:
        assert interaction.guild_id is not None
        if self._mine_limit.admit(interaction.guild_id, interaction.user.id) is not ALLOWED:
            await respond(interaction, "You just asked; please wait a minute before asking again.")
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        privacy = self.memory.privacy
        subject = await privacy.subject_or_id(interaction.guild_id, str(interaction.user.id))
        document = await privacy.export(subject)
        export = discord.File(io.BytesIO(to_json(document).encode()), filename="memory.json")
        await interaction.followup.send(
            describe_mine(document), file=export, ephemeral=True, allowed_mentions=NO_PINGS
        )
        self._emit(interaction, "mine", user_id=interaction.user.id)

    @app_commands.command(
        name="optout", description="Stop being remembered here, and delete what is kept"
    )
    async def optout(self, interaction: discord.Interaction) -> None:
        assert interaction.guild_id is not None
        view = ConfirmOptOut(interaction.user.id)
        await interaction.response.send_message(
            OPT_OUT_EXPLAINED, view=view, ephemeral=True, allowed_mentions=NO_PINGS
        )
        await view.wait()
        if not view.confirmed:
            if view.confirmed is None:  # timed out
                await interaction.followup.send(NOTHING_CHANGED, ephemeral=True)
            return
        privacy = self.memory.privacy
        subject = await privacy.subject_or_id(interaction.guild_id, str(interaction.user.id))
        report = await privacy.opt_out(subject, actor_id=interaction.user.id, by_admin=False)
        await interaction.followup.send(
            f"Done: I deleted what I kept about you ({report.counts.total} rows) and will not"
            " remember you here. `/memory optin` undoes this from now on.",
            ephemeral=True,
        )
        self._emit(interaction, "optout", user_id=interaction.user.id)

    @app_commands.command(name="optin", description="Be remembered here (again) from now on")
    async def optin(self, interaction: discord.Interaction) -> None:
        assert interaction.guild_id is not None
        await self.memory.privacy.opt_in(
            interaction.guild_id, interaction.user.id, actor_id=interaction.user.id, by_admin=False
        )
        await respond(
            interaction,
            "Done: I remember you here from now on. Nothing deleted earlier comes back;"
            " `/memory optout` stops it again.",
        )
        self._emit(interaction, "optin", user_id=interaction.user.id)

    # --- /memory stats ----------------------------------------------------------------------

    @app_commands.command(
        name="stats",
        description="LLM usage, cache hit rates, queue depth, fallbacks (Manage Server)",
    )
    @manage_server_only()
    async def stats(self, interaction: discord.Interaction) -> None:
        text = code_block(fit(self.memory.operations.stats_text(), MESSAGE_LIMIT - 40))
        await respond(interaction, "**Memory stats**\n" + text)
        self._emit(interaction, "stats")

    # --- /memory context @member ------------------------------------------------------------

    @app_commands.command(
        name="context",
        description="The assembled memory of a member with its sources (Manage Server)",
    )
    @app_commands.describe(user="The member whose memory to show")
    @manage_server_only()
    async def context(self, interaction: discord.Interaction, user: discord.Member) -> None:
        assert interaction.guild_id is not None
        await interaction.response.defer(ephemeral=True, thinking=True)
        report = await self.memory.manager.build_context(
            interaction.guild_id, user.id, budget=CONTEXT_BUDGET_SECONDS
        )
        await respond(interaction, render_context(report))
        self._emit(interaction, "context", user_id=user.id)

    # --- /memory purge @member --------------------------------------------------------------

    @app_commands.command(
        name="purge", description="Delete everything the bot holds about a member"
    )
    @app_commands.describe(
        user="The member to forget entirely",
        confirm="True to delete; otherwise only show what would be deleted",
    )
    async def purge(
        self, interaction: discord.Interaction, user: discord.Member, confirm: bool = False
    ) -> None:
        assert interaction.guild_id is not None
        if user.id != interaction.user.id and not interaction.permissions.manage_guild:
            self._emit(interaction, "purge", "refused")
            await respond(interaction, PURGE_REFUSED)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        name = discord.utils.escape_markdown(user.display_name)
        privacy = self.memory.privacy
        try:
            subject = await privacy.subject(interaction.guild_id, str(user.id))
        except PrivacyError:
            await respond(interaction, f"I hold nothing about {name}.")
            self._emit(interaction, "purge", "skipped", user_id=user.id)
            return
        if not confirm:
            preview = await privacy.preview(subject)
            await respond(
                interaction,
                f"This would delete everything I hold about {name}:\n"
                + code_block(export_summary(preview))
                + "\nDays they shared with others will be summarised again without them."
                " Run `/memory purge` again with `confirm: True` to do it.",
            )
            self._emit(interaction, "purge", "preview", user_id=user.id)
            return
        report = await privacy.purge(subject, actor_id=interaction.user.id, wait=False)
        stale = len(report.counts.stale_days)
        await respond(
            interaction,
            f"Done: I no longer hold anything about {name} ({report.counts.total} rows deleted)."
            + (
                f" {plural(stale, 'shared day')} will be summarised again without them."
                if stale
                else ""
            ),
        )
        self._emit(interaction, "purge", user_id=user.id, count=report.counts.total)

    # --- /memory settings -------------------------------------------------------------------

    @app_commands.command(
        name="settings",
        description="Show or change this server's memory settings (Manage Server)",
    )
    @app_commands.describe(
        timezone="IANA time zone for day boundaries, e.g. Europe/Berlin",
        ignore_channel="Stop storing messages from this channel",
        unignore_channel="Store messages from this channel again",
        forget_others="Who may forget facts about someone else",
        storage="Store everyone (who has not opted out), or only members who opted in",
        search_config="Text search configuration of /recall: simple (any language) or a"
        " language such as english (re-indexes this server's messages)",
        memory_sources="Build shared memory (notes, summaries, learned facts) from public"
        " channels only, or from all channels (when every member sees everything)",
    )
    @app_commands.autocomplete(timezone=timezone_autocomplete)
    @manage_server_only()
    async def settings(
        self,
        interaction: discord.Interaction,
        timezone: str | None = None,
        ignore_channel: discord.TextChannel | None = None,
        unignore_channel: discord.TextChannel | None = None,
        forget_others: Literal["managers", "anyone"] | None = None,
        storage: Literal["everyone", "opted-in"] | None = None,
        search_config: str | None = None,
        memory_sources: Literal["public", "all"] | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        if search_config is not None:  # re-indexing a large server takes longer than 3 s
            await interaction.response.defer(ephemeral=True, thinking=True)
        changes = {
            "timezone": timezone,
            "ignore_channel": ignore_channel.id if ignore_channel else None,
            "unignore_channel": unignore_channel.id if unignore_channel else None,
            "forget_others": forget_others,
            "storage": storage,
            "search_config": search_config,
            "memory_sources": memory_sources,
        }
        changed = {key: value for key, value in changes.items() if value is not None}
        admin = self.memory.guild_settings
        try:
            if changed:
                current = await admin.update(interaction.guild_id, **changed)
            else:
                current = await admin.refresh(interaction.guild_id)
        except InvalidSetting as exc:
            await respond(interaction, f"Nothing changed: {exc}.")
            self._emit(interaction, "settings", "invalid")
            return
        title = "Settings updated" if changed else "Settings of this server"
        text = f"**{title}**\n{describe_settings(current)}"
        if storage == "opted-in":
            held = len(await self.memory.privacy.unconsented(interaction.guild_id))
            text += (
                f"\nNothing was deleted: {plural(held, 'member')} "
                f"{'is' if held == 1 else 'are'} held without having opted in."
                " From now on only members who run `/memory optin` are stored; to delete what is"
                f" held about the others: `memorybot user purge-unconsented --guild"
                f" {interaction.guild_id}`."
            )
        await respond(interaction, text)
        self._emit(interaction, "settings", changed=sorted(changed) or None)

    @settings.autocomplete("search_config")
    async def search_config_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """The database's text search configurations containing what was typed."""
        needle = current.strip().lower()
        names = await self.memory.guild_settings.search_configs()
        return [app_commands.Choice(name=name, value=name) for name in names if needle in name][:25]


async def setup(bot: MemoryBot) -> None:
    await bot.add_cog(MemoryGroupCog(bot, bot.memory))
