"""Issue 45.2: a face method that only hands the call on (same arguments, another object) is a
second copy of a signature; where a front end only needs a service's methods, a protocol the
service satisfies names them instead. The forwarders left are listed here, so a new one fails."""

from __future__ import annotations

from tests.memory.ports.face_methods import face_methods, forwarders

# The channel window's own entries on the Conversation face (the composer and its keeper are
# not front-door services): the three forwarders left.
LEFT = {"Conversation.hear", "Conversation.message_edited", "Conversation.messages_deleted"}


def test_no_new_face_method_only_forwards() -> None:
    assert set(forwarders()) <= LEFT, sorted(set(forwarders()) - LEFT)


def test_the_counter_sees_the_faces_and_their_forwarders() -> None:
    """The count can fail: it finds every face and the forwarders still there."""
    faces = {face for face, _, _ in face_methods()}
    assert {"Conversation", "Operations", "FrontDoor", "Episodes"} <= faces
    assert set(forwarders()) == LEFT
