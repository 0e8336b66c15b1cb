"""The offline console: chat with the bot in a terminal, as members of a local guild.

Same code path as Discord: messages go through the batched writer into PostgreSQL, memory
commands through `MemoryCommands`, replies through the `ReplyComposer`, with the configured
LLM provider (offline by default). Only the transport differs: lines of text instead of a
gateway. Drivable from a script: `memorybot console < script.txt`.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import re
import shlex
from collections.abc import Callable

from bot.console_commands import member_controls, summarize_lines
from bot.console_notices import ModelNotices
from bot.console_text import HELP, explain_report
from memory.core.models import ChatMessage, Member
from memory.core.viewer import Viewer
from memory.language import addressed_text
from memory.ports import Addressed, Answer, FrontDoor, IncomingMessage

_log = logging.getLogger(__name__)

CONSOLE_GUILD_ID = 1
# Not "you" or "me": a member name is matched in chat text, and those words are everywhere.
DEFAULT_SPEAKER = "guest"
CONSOLE_CHANNEL_ID = 1
CONSOLE_CHANNEL_NAME = "console"
DISCORD_EPOCH_MS = 1_420_070_400_000
BOT_USER_ID = 1 << 60

_CHANNEL_MENTION = re.compile(r"<#(\d+)>")


def user_id_for(name: str) -> int:
    """A stable snowflake-sized id for a console member, derived from the name."""
    digest = hashlib.sha256(name.strip().lower().encode()).digest()
    return 10**17 + int.from_bytes(digest[:7], "big") % (9 * 10**17)


class ConsoleSession:
    """One terminal conversation. `handle_line` returns what the terminal should print."""

    def __init__(
        self,
        memory: FrontDoor,
        *,
        speaker: str = DEFAULT_SPEAKER,
        guild_id: int = CONSOLE_GUILD_ID,
        channel_id: int = CONSOLE_CHANNEL_ID,
    ) -> None:
        # The local console guild, or an existing (e.g. imported) server to speak in.
        self.guild_id = guild_id
        self.channel_id = channel_id
        self.memory = memory
        self.bot_name = memory.settings.bot_name
        # Resolved against the guild's members before the first line (`start`): stored only
        # if nobody there answers to the name or id, so `--as alice` is the imported alice.
        self.speaker = _console_member(guild_id, speaker)
        self._unresolved: str | None = speaker
        self._sequence = 0
        self._quit = False
        self._public: frozenset[int] | None = None
        log_file = memory.settings.log_dir / "console.log"
        self._notices = ModelNotices(memory.telemetry, str(log_file))
        memory.conversation.bot_user_id = BOT_USER_ID
        # Output names the channel ("#console") rather than its id.
        memory.writer.submit_guild(guild_id, None, [(channel_id, CONSOLE_CHANNEL_NAME)])

    @property
    def finished(self) -> bool:
        return self._quit

    def banner(self) -> str:
        return (
            f"memorybot console (offline: not connected to Discord). You type as members of a "
            f"local guild (id {self.guild_id}); its messages, facts and summaries are stored "
            f"like a real guild's, with the LLM provider {self.memory.settings.provider}. "
            f"You are {self.speaker.display_name}.\n" + HELP.format(bot=self.bot_name)
        )

    async def start(self) -> None:
        """Who `--as` names, found among the guild's members by name or id before anything
        is said (a new console member only when nobody answers to it)."""
        if self._unresolved is not None:
            name, self._unresolved = self._unresolved, None
            self.speaker = await self._existing_or_new(name)

    async def viewer(self, speaker: Member) -> Viewer:
        """Whose eyes a reply is for: the console is one channel, so its own messages plus
        the guild's public channels (an imported server's restricted ones stay out)."""
        if self._public is None:
            self._public = await self.memory.visibility.public_channels(self.guild_id)
        return Viewer.of_channels(speaker.user_id, self._public | {self.channel_id})

    def _next_id(self) -> int:
        now = self.memory.clock.now()
        self._sequence += 1
        millis = int(now.timestamp() * 1000) - DISCORD_EPOCH_MS
        return (max(millis, 0) << 22) | (self._sequence & 0x3FFFFF)

    async def handle_line(self, line: str) -> list[str]:
        """What the terminal prints for `line`, then any model that stopped answering."""
        said = await self._handle_line(line)
        return said + self._notices.pending()

    async def _handle_line(self, line: str) -> list[str]:
        line = line.strip()
        if not line or line.startswith("#"):
            return []
        await self.start()
        if line.startswith("/"):
            return await self._slash(line)
        speaker = self.speaker
        head, sep, rest = line.partition(":")
        name = head.strip()
        # "alice: hi" speaks as alice; "Bot: hi" and "https://..." are ordinary text.
        if (
            sep
            and name
            and " " not in name
            and name.lower() not in (self.bot_name.lower(), "http", "https")
        ):
            speaker, line = await self._existing_or_new(name), rest.strip()
        return await self._say(speaker, line)

    async def _say(self, speaker: Member, text: str) -> list[str]:
        message_id = await self._hear(speaker, text)
        addressed = addressed_text(text, bot_name=self.bot_name, bot_user_id=BOT_USER_ID)
        if addressed is None:
            return []
        await self.memory.writer.flush()  # commands resolve names from the directory
        # and replies read the channel's episodes: a transcript is the same every run.
        await self.memory.episodes.settled()
        asked = Addressed(
            message=IncomingMessage(
                self.guild_id,
                self.channel_id,
                message_id,
                speaker.user_id,
                speaker.display_name,
                addressed,
                viewer=await self.viewer(speaker),
            ),
            author=speaker,
            can_manage_guild=True,  # the console's speaker holds Manage Server (see /help)
        )
        terminal = _Terminal(self)
        await self.memory.conversation.answer(asked, terminal)
        return terminal.lines

    async def _hear(self, speaker: Member, text: str) -> int:
        """A line said in the channel: stored as a message and heard by the window; its id."""
        message_id = self._next_id()
        self.memory.writer.submit(
            ChatMessage(
                message_id=message_id,
                guild_id=self.guild_id,
                channel_id=self.channel_id,
                author_id=speaker.user_id,
                content=text,
                created_at=self.memory.clock.now(),
            )
        )
        await self.memory.window.observe(
            IncomingMessage(
                self.guild_id,
                self.channel_id,
                message_id,
                speaker.user_id,
                speaker.display_name,
                text,
                viewer=Viewer.of_channels(speaker.user_id, {self.channel_id}),
            )
        )
        return message_id

    async def _channel_names(self, text: str) -> str:
        """Discord's `<#id>` channel mentions as `#name`: a terminal has no client to draw them."""
        ids = {int(found) for found in _CHANNEL_MENTION.findall(text)}
        if not ids:
            return text
        names = await self.memory.guild_settings.channel_names(self.guild_id, ids)
        names.setdefault(self.channel_id, CONSOLE_CHANNEL_NAME)  # its name may be unstored yet
        return _CHANNEL_MENTION.sub(
            lambda match: f"#{names.get(int(match.group(1)), match.group(1))}", text
        )

    def _answer(self, text: str | None) -> list[str]:
        return [f"{self.bot_name}: {text}"] if text else []

    async def _existing_or_new(self, name: str) -> Member:
        """The member of the guild answering to `name` or with that id (an imported server's
        people), else a new console member of that name."""
        found = await self._find(name)
        if found is not None:
            return found
        member = _console_member(self.guild_id, name)
        self.memory.writer.submit_member(member)
        return member

    async def _find(self, name: str) -> Member | None:
        """One existing member for `name`: by id, else by any name; of several, the console's
        own member of that name or the oldest, never a new one."""
        clean = name.strip().lstrip("@")
        await self.memory.writer.flush()
        members = self.memory.members
        if clean.isdigit() and len(clean) <= 19 and int(clean) < 1 << 63:  # a storable id
            by_id = await members.get(self.guild_id, [int(clean)])
            if int(clean) in by_id:
                return by_id[int(clean)]
        found = await members.find(self.guild_id, clean)
        own = [member for member in found if member.user_id == user_id_for(clean)]
        return (own or found)[0] if found else None

    async def _slash(self, line: str) -> list[str]:
        try:
            words = shlex.split(line)
        except ValueError:
            words = line.split()
        command, args = words[0].lower(), words[1:]
        handlers: dict[str, Callable[[list[str]], list[str]]] = {
            "/help": lambda _: [HELP.format(bot=self.bot_name)],
            "/quit": self._stop,
            "/exit": self._stop,
        }
        if command in handlers:
            return handlers[command](args)
        if command == "/as":
            if not args:
                return ["usage: /as NAME"]
            self.speaker = await self._existing_or_new(" ".join(args))
            return [f"(you are now {self.speaker.display_name})"]
        if command in ("/remember", "/forget", "/whois", "/undo", "/memory") and not args:
            return [
                f"usage: {command} NAME{' fact' if command in ('/remember', '/forget') else ''}"
            ]
        if command in ("/remember", "/forget", "/whois", "/undo"):
            return self._answer(await self._memory_command(command, args))
        if command == "/memory":
            return await self._show(args[0])
        if command in ("/optout", "/optin", "/mine"):
            return await member_controls(self.memory, self.guild_id, self.speaker, command)
        if command == "/summarize":
            return await summarize_lines(self.memory, self.guild_id, args[0] if args else None)
        return [f"unknown command {command}; /help lists them"]

    def _stop(self, _: list[str]) -> list[str]:
        self._quit = True
        return ["bye"]

    async def _memory_command(self, command: str, args: list[str]) -> str | None:
        # Only a remember introduces someone new; a whois, forget or undo never creates anyone.
        if command == "/remember":
            target = await self._existing_or_new(args[0])
        else:
            found = await self._find(args[0])
            if found is None:
                return f"no member named {args[0].strip()}"
            target = found
        result = await self.memory.commands.slash(
            command.lstrip("/"),
            self.guild_id,
            self.speaker,
            target,
            " ".join(args[1:]),
            can_manage_guild=True,
        )
        return result.reply

    async def _show(self, name: str) -> list[str]:
        await self.memory.writer.flush()
        found = await self.memory.members.find(self.guild_id, name.strip().lstrip("@"))
        if not found:
            return [f"no member named {name.strip()} (/as NAME speaks as a new one)"]
        if len(found) > 1:
            names = ", ".join(member.display_name for member in found)
            return [f"{len(found)} members answer to {name.strip()}: {names}; use a fuller name"]
        target = found[0]
        report = await self.memory.manager.wait_for_context(self.guild_id, target.user_id)
        return explain_report(report, bot_name=self.bot_name)


class _Terminal:
    """Where the console's answers go: lines to print, each a message with a fresh id."""

    optin_command = "/optin"

    def __init__(self, session: ConsoleSession) -> None:
        self._session = session
        self.lines: list[str] = []

    def working(self, *, show: bool) -> contextlib.AbstractAsyncContextManager[None]:
        return contextlib.nullcontext()

    async def send(self, answer: Answer) -> int:
        # Discord's `<#id>` channel mentions as `#name`: a terminal has no client to draw them.
        self.lines += self._session._answer(await self._session._channel_names(answer.text))
        return self._session._next_id()


def _console_member(guild_id: int, name: str) -> Member:
    """A console member of that name, with the stable id the name gives it."""
    clean = name.strip().lstrip("@") or DEFAULT_SPEAKER
    return Member(guild_id, user_id_for(clean), username=clean)
