"""Issue 45.2: a face method that only hands the call on (same arguments, another object) is a
second copy of a signature; where a front end only needs a service's methods, a protocol the
service satisfies names them instead. No forwarder is left, so a new one fails."""

from __future__ import annotations

from pathlib import Path

from tests.memory.ports.face_methods import PORTS, face_methods, forwarders


def test_no_face_method_only_forwards() -> None:
    assert forwarders() == []


def test_the_counter_sees_the_faces() -> None:
    faces = {face for face, _, _ in face_methods()}
    assert {"Conversation", "Operations", "FrontDoor", "Episodes", "ChannelWindow"} <= faces


def test_a_forwarder_put_back_is_counted(tmp_path: Path) -> None:
    """The count can fail: the conversation face with the old `hear` put back is caught."""
    source = (PORTS / "conversation.py").read_text(encoding="utf-8")
    forwarder = (
        "\n    async def hear(self, message: IncomingMessage) -> None:\n"
        '        """Joins the window."""\n'
        "        await self._composer.observe(message)\n"
    )
    before = source.index("\n\nasync def _shown(")
    (tmp_path / "conversation.py").write_text(source[:before] + "\n" + forwarder + source[before:])
    assert forwarders(tmp_path) == ["Conversation.hear"]
