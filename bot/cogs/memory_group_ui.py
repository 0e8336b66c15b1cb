"""What the `/memory` group shows besides its answers: a member's context as one message, the
timezone choices of `/memory settings`, and the opt-out confirmation only its asker may press.
"""

from __future__ import annotations

from zoneinfo import available_timezones

import discord
from discord import app_commands

from bot.interactions import MESSAGE_LIMIT, code_block, fit
from memory.ports import ContextReport, report_details

OPT_OUT_EXPLAINED = (
    "If you opt out, I delete everything I keep about you in this server (your messages, the"
    " facts about you, the summaries of your days) and I store nothing of yours from now on."
    " Messages of others that mention you stay theirs. You can opt in again at any time;"
    " nothing deleted comes back."
)
NOTHING_CHANGED = "Nothing changed: I still remember you."


def render_context(report: ContextReport) -> str:
    """The report as one Discord message: the context first, then sources, sizes, costs."""
    name = discord.utils.escape_markdown(report.member_name)
    head = f"**Memory of {name}** (id {report.user_id}), as of {report.day} ({report.timezone})"
    tail = code_block("\n".join(report_details(report)))
    room = MESSAGE_LIMIT - len(head) - len(tail) - 20
    body = code_block(fit(report.text, room)) if report.text else "*(nothing known about them)*"
    return f"{head}\n{body}\n{tail}"


async def timezone_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """IANA names containing what was typed (Discord shows at most 25)."""
    needle = current.strip().lower().replace(" ", "_")
    zones = sorted(zone for zone in available_timezones() if needle in zone.lower())
    return [app_commands.Choice(name=zone, value=zone) for zone in zones[:25]]


class ConfirmOptOut(discord.ui.View):
    """Confirm/Cancel buttons only the member who asked can press."""

    def __init__(self, user_id: int) -> None:
        super().__init__(timeout=120)
        self.user_id = user_id
        self.confirmed: bool | None = None

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        return interaction.user.id == self.user_id

    @discord.ui.button(label="Yes, forget me", style=discord.ButtonStyle.danger)
    async def confirm(
        self, interaction: discord.Interaction, button: discord.ui.Button[ConfirmOptOut]
    ) -> None:
        self.confirmed = True
        await interaction.response.edit_message(content="Forgetting you now...", view=None)
        self.stop()

    @discord.ui.button(label="Cancel", style=discord.ButtonStyle.secondary)
    async def cancel(
        self, interaction: discord.Interaction, button: discord.ui.Button[ConfirmOptOut]
    ) -> None:
        self.confirmed = False
        await interaction.response.edit_message(content=NOTHING_CHANGED, view=None)
        self.stop()
