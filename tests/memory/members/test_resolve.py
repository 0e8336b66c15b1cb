"""Member resolution on a real member directory: every kind of name, ambiguity, unknowns."""

from __future__ import annotations

import asyncpg
import pytest

from db.members import add_alias, upsert_members
from memory.core.models import Member
from memory.members import MemberResolver, describe

G = 200
ALICE = Member(G, 111111111111111111, username="alice_w", global_name="Alice", nickname="Ali")
BOB = Member(G, 2, username="bob", global_name="Robert")
BOBBY = Member(G, 3, username="bobby", nickname="Bob")
ZED = Member(G + 1, 4, username="zed")


@pytest.fixture
async def resolver(db_pool: asyncpg.Pool) -> MemberResolver:
    await upsert_members(db_pool, [ALICE, BOB, BOBBY, ZED])
    await add_alias(db_pool, G, ALICE.user_id, "Sergey")
    return MemberResolver(db_pool)


@pytest.mark.parametrize(
    "reference",
    [
        "<@111111111111111111>",
        "<@!111111111111111111>",
        "111111111111111111",
        "Ali",
        "alice_w",
        "ALICE",
        "@alice",
        "sergey",
    ],
)
async def test_every_name_resolves(resolver: MemberResolver, reference: str) -> None:
    resolution = await resolver.resolve(G, reference)
    assert resolution.found and resolution.member is not None
    assert resolution.member.user_id == ALICE.user_id


async def test_self_words_resolve_to_the_author(resolver: MemberResolver) -> None:
    for word in ("me", "Myself", "I"):
        resolution = await resolver.resolve(G, word, author=BOB)
        assert resolution.member == BOB and resolution.is_self


async def test_ambiguous_names_return_candidates(resolver: MemberResolver) -> None:
    resolution = await resolver.resolve(G, "bob")
    assert not resolution.found and resolution.ambiguous
    assert [m.user_id for m in resolution.candidates] == [2, 3]
    assert describe(resolution.candidates[1]) == "Bob (@bobby, id 3)"


async def test_unknown_and_other_guild_members_are_unknown(resolver: MemberResolver) -> None:
    for reference in ("zed", "nobody", "444444444444444444"):
        resolution = await resolver.resolve(G, reference)
        assert not resolution.found and not resolution.ambiguous
        assert resolution.query == reference


async def test_a_mention_of_an_unseen_user_still_resolves(resolver: MemberResolver) -> None:
    resolution = await resolver.resolve(G, "<@999>")
    assert resolution.member == Member(G, 999)
    known = {999: Member(G, 999, username="newbie")}
    resolution = await resolver.resolve(G, "<@999>", known=known)
    assert resolution.member is not None and resolution.member.username == "newbie"


async def test_subject_of_a_statement(resolver: MemberResolver, db_pool: asyncpg.Pool) -> None:
    await upsert_members(db_pool, [Member(G, 5, username="bigbob", nickname="Big Bob")])
    big = await resolver.resolve_subject(G, "Big Bob's cat is cute")
    assert big.member is not None and big.member.user_id == 5
    sergey = await resolver.resolve_subject(G, "Sergey likes tea")
    assert sergey.member is not None and sergey.member.user_id == ALICE.user_id
    me = await resolver.resolve_subject(G, "I like tea", author=BOB)
    assert me.member == BOB
    unknown = await resolver.resolve_subject(G, "the weather is nice")
    assert not unknown.found and unknown.query == "the"
    ambiguous = await resolver.resolve_subject(G, "bob plays bass")
    assert ambiguous.ambiguous
