"""The harness itself: a plain discord.py bot connects, receives events, and its REST calls are
recorded. If these fail, every other e2e failure is suspect."""

from __future__ import annotations

import asyncio

import discord
from discord import app_commands
from discord.ext import commands

from tests.e2e.fake_discord import BOB_ID, FakeDiscord, eventually


class _EchoBot(commands.Bot):
    def __init__(self) -> None:
        intents = discord.Intents.default()
        intents.members = True
        intents.message_content = True
        super().__init__(command_prefix="!", intents=intents, guild_ready_timeout=0.05)
        self.seen: list[discord.Message] = []
        self.edits: list[discord.RawMessageUpdateEvent] = []
        self.deletes: list[int] = []
        self.nick_changes: list[str | None] = []

        @self.tree.command(name="ping", description="answer pong")
        async def ping(interaction: discord.Interaction, who: discord.Member, n: int) -> None:
            await interaction.response.send_message(f"pong {who.display_name} {n}")

        group = app_commands.Group(name="memory", description="memory admin")

        @group.command(name="stats", description="stats")
        async def stats(interaction: discord.Interaction) -> None:
            allowed = interaction.permissions.manage_guild
            await interaction.response.defer(ephemeral=True, thinking=True)
            await interaction.followup.send(f"stats for admins: {allowed}", ephemeral=True)

        self.tree.add_command(group)

    async def setup_hook(self) -> None:
        await self.tree.sync()

    async def on_message(self, message: discord.Message) -> None:
        self.seen.append(message)
        if message.author != self.user and message.content == "echo":
            async with message.channel.typing():
                await message.reply("echoed")

    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        self.edits.append(payload)

    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        self.deletes.append(payload.message_id)

    async def on_member_update(self, before: discord.Member, after: discord.Member) -> None:
        self.nick_changes.append(after.nick)


async def test_plain_bot_round_trip(fake_discord: FakeDiscord) -> None:
    bot = _EchoBot()
    task = asyncio.create_task(bot.start("fake-token"))
    try:
        await asyncio.wait_for(bot.wait_until_ready(), 10)
        guild = bot.get_guild(fake_discord.guild.id)
        assert guild is not None
        bob = guild.get_member(BOB_ID)
        assert bob is not None and bob.nick == "Bobby"
        secret = guild.get_channel(fake_discord.channel_named("secret").id)
        assert isinstance(secret, discord.TextChannel)
        assert not secret.permissions_for(guild.me).read_messages
        assert fake_discord.identify is not None
        assert fake_discord.identify["intents"] & discord.Intents.message_content.flag

        sent = await fake_discord.send_message("echo", author="alice")
        reply = await fake_discord.wait_for_sent(lambda m: m["content"] == "echoed")
        assert reply["message_reference"]["message_id"] == sent["id"]
        assert fake_discord.typing == [fake_discord.channel.id]
        # the bot's own reply comes back over the gateway, as on Discord
        await eventually(lambda: any(m.author == bot.user for m in bot.seen))

        await fake_discord.edit_message(int(sent["id"]), "echo, edited")
        await eventually(lambda: bot.edits)
        assert bot.edits[0].message.content == "echo, edited"
        await fake_discord.delete_message(int(sent["id"]))
        await eventually(lambda: bot.deletes == [int(sent["id"])])
        await fake_discord.update_member("alice", nick="Ally")
        await eventually(lambda: bot.nick_changes == ["Ally"])

        older = fake_discord.add_history("while offline", author="bob")
        general = guild.get_channel(fake_discord.channel.id)
        assert isinstance(general, discord.TextChannel)
        page = [
            m
            async for m in general.history(
                after=discord.Object(int(sent["id"]) - 1), oldest_first=True
            )
        ]
        assert [m.content for m in page][-1] == older["content"] == "while offline"

        assert [c["name"] for c in fake_discord.synced_commands[None]] == ["ping", "memory"]
        interaction = await fake_discord.invoke_slash("ping", {"who": "bob", "n": 3}, user="alice")
        response = await fake_discord.wait_for_interaction_response(interaction["id"])
        assert response["data"]["content"] == "pong Bobby 3"
        assert fake_discord.interaction_text(interaction["id"]) == "pong Bobby 3"

        interaction = await fake_discord.invoke_slash(
            "memory stats", user="bob", member_permissions=0x20
        )
        response = await fake_discord.wait_for_interaction_response(interaction["id"])
        assert response["type"] == 5 and response["data"]["flags"] == 64
        await eventually(lambda: fake_discord.followups.get(int(interaction["id"])))
        assert fake_discord.interaction_text(interaction["id"]) == "stats for admins: True"
        assert fake_discord.unhandled == []
    finally:
        await bot.close()
        await asyncio.wait_for(task, 10)
