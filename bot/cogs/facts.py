"""Facts cog: memory commands on Discord - freeform ("Bot, remember that alice is Sergey") and
slash (/remember, /forget, /whois; `/memory undo` lives in the `/memory` group cog).

Only translation lives here: discord.py objects in, `memory.member_commands.MemoryCommands` does the
work, its reply goes out with every mention disabled. Messages addressed to the bot that are
not memory commands are left alone and announced as the `addressed_message` event
(`on_addressed_message(message, text)`), so the replies cog answers them without deciding
again whether they were commands.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.convert import to_member
from bot.interactions import followup_in_parts, reply_in_parts
from memory.core.surrogates import clean_text
from memory.language import addressed_text, prefilter
from memory.ports import CommandResult, FrontDoor, RepliedMessage

if TYPE_CHECKING:
    from bot.client import MemoryBot

_log = logging.getLogger(__name__)

FAILED = "Sorry, something went wrong while I was handling that. Please try again later."


class FactsCog(commands.Cog, name="Facts"):
    """Remember, forget and what-do-you-know, for messages and slash commands."""

    def __init__(self, bot: commands.Bot | commands.AutoShardedBot, memory: FrontDoor) -> None:
        self.bot = bot
        self.memory = memory

    # --- freeform ---------------------------------------------------------------------------

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        if message.guild is None or message.author.bot or self.bot.user is None:
            return
        if self.memory.chat.cached_settings(message.guild.id).ignores(message.channel.id):
            return  # an admin excluded this channel: the bot neither stores nor answers here
        referenced = await self._referenced(message, fetch=False)
        reply_to_bot = referenced is not None and referenced.author.id == self.bot.user.id
        text = addressed_text(
            clean_text(message.content),  # lone surrogates and NUL never reach the commands
            bot_name=self.memory.settings.bot_name,
            bot_user_id=self.bot.user.id,
            reply_to_bot=reply_to_bot,
        )
        if text is None:
            return
        if message.reference is not None and referenced is None:
            referenced = await self._referenced(message, fetch=True)
        replied = None if reply_to_bot else _replied(referenced)
        if prefilter(text, has_reply=replied is not None).ignore:
            self.bot.dispatch("addressed_message", message, text)
            return
        result = await self._handle(message, text, replied)
        if result is None:
            self.bot.dispatch("addressed_message", message, text)
        elif result.reply:
            await reply_in_parts(message, result.reply)

    async def _handle(
        self, message: discord.Message, text: str, replied: RepliedMessage | None
    ) -> CommandResult | None:
        assert message.guild is not None
        author = message.author
        can_manage = isinstance(author, discord.Member) and author.guild_permissions.manage_guild
        mentions = [
            to_member(user, message.guild.id)
            for user in message.mentions
            if self.bot.user is None or user.id != self.bot.user.id
        ]
        try:
            async with message.channel.typing():
                return await self.memory.member_commands.handle(
                    message.guild.id,
                    to_member(author, message.guild.id),
                    text,
                    replied_to=replied,
                    author_can_manage_guild=can_manage,
                    message_id=message.id,
                    mentions=mentions,
                )
        except Exception:
            _log.exception("memory command failed: message %s", message.id)
            self.memory.telemetry.emit(
                "command", outcome="error", guild_id=message.guild.id, user_id=author.id
            )
            return CommandResult(FAILED, "command", "error")

    async def _referenced(self, message: discord.Message, *, fetch: bool) -> discord.Message | None:
        reference = message.reference
        if reference is None or reference.message_id is None:
            return None
        resolved = reference.resolved or reference.cached_message
        if isinstance(resolved, discord.Message):
            return resolved
        if not fetch:
            return None
        try:
            return await message.channel.fetch_message(reference.message_id)
        except discord.HTTPException:
            return None

    # --- slash commands ---------------------------------------------------------------------

    @app_commands.command(name="remember", description="Remember a fact about a member")
    @app_commands.describe(user="Who the fact is about", fact="The fact, e.g. 'likes green tea'")
    @app_commands.guild_only()
    async def remember_command(
        self, interaction: discord.Interaction, user: discord.Member, fact: str
    ) -> None:
        await self._slash(interaction, "remember", user, fact)

    @app_commands.command(name="forget", description="Forget a fact about a member")
    @app_commands.describe(user="Who the fact is about", fact="What to forget")
    @app_commands.guild_only()
    async def forget_command(
        self, interaction: discord.Interaction, user: discord.Member, fact: str
    ) -> None:
        await self._slash(interaction, "forget", user, fact)

    @app_commands.command(name="whois", description="What the bot knows about a member")
    @app_commands.describe(user="The member")
    @app_commands.guild_only()
    async def whois_command(self, interaction: discord.Interaction, user: discord.Member) -> None:
        await self._slash(interaction, "whois", user, None)

    async def _slash(
        self,
        interaction: discord.Interaction,
        kind: str,
        user: discord.Member | discord.User,
        fact: str | None,
    ) -> None:
        guild_id = interaction.guild_id
        assert guild_id is not None  # guild_only
        # Merges call a model; answer within Discord's 3 seconds by deferring first.
        await interaction.response.defer(thinking=True)
        result = await self.memory.member_commands.slash(
            kind,
            guild_id,
            to_member(interaction.user, guild_id),
            to_member(user, guild_id),
            fact,
            can_manage_guild=interaction.permissions.manage_guild,
        )
        await followup_in_parts(interaction, result.reply or FAILED)


def _replied(message: discord.Message | None) -> RepliedMessage | None:
    if message is None or not (message.content or "").strip():
        return None
    author = message.author
    return RepliedMessage(
        content=message.content,
        author_id=author.id,
        author_name=getattr(author, "display_name", None) or author.name,
        message_id=message.id,
    )


async def setup(bot: MemoryBot) -> None:
    await bot.add_cog(FactsCog(bot, bot.memory))
