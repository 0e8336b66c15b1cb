"""Member directory: upserts keep known names, renames become aliases, lookups by any name."""

from __future__ import annotations

import asyncpg

from db.members import add_alias, find_by_name, get_member, get_members, upsert_members
from memory.core.models import Member

G = 10


async def test_rename_keeps_old_nickname_as_alias(db_pool: asyncpg.Pool) -> None:
    await upsert_members(db_pool, [Member(G, 1, username="alice_w", nickname="Ali")])
    await upsert_members(db_pool, [Member(G, 1, username="alice_w", nickname="Alice")])
    member = await get_member(db_pool, G, 1)
    assert member is not None
    assert member.nickname == "Alice"
    assert "Ali" in member.aliases
    assert [m.user_id for m in await find_by_name(db_pool, G, "ali")] == [1]


async def test_update_without_names_keeps_known_ones(db_pool: asyncpg.Pool) -> None:
    await upsert_members(db_pool, [Member(G, 2, username="bob", global_name="Bobby")])
    await upsert_members(db_pool, [Member(G, 2)])
    member = await get_member(db_pool, G, 2)
    assert member is not None and member.username == "bob" and member.global_name == "Bobby"
    assert member.aliases == ()


async def test_alias_lookup_is_case_insensitive_and_per_guild(db_pool: asyncpg.Pool) -> None:
    await upsert_members(db_pool, [Member(G, 3, username="gruzilkin"), Member(G + 1, 3)])
    await add_alias(db_pool, G, 3, "Sergey")
    await add_alias(db_pool, G, 3, "Sergey")
    assert [m.user_id for m in await find_by_name(db_pool, G, "@sergey")] == [3]
    assert await find_by_name(db_pool, G + 1, "sergey") == []
    members = await get_members(db_pool, G, [3, 99])
    assert list(members) == [3] and members[3].aliases == ("Sergey",)


async def test_a_cleared_nickname_is_cleared_only_when_the_update_says_so(
    db_pool: asyncpg.Pool,
) -> None:
    await upsert_members(db_pool, [Member(G, 4, username="carol", nickname="Caz")])
    await upsert_members(db_pool, [Member(G, 4, username="carol")])  # e.g. an import
    kept = await get_member(db_pool, G, 4)
    assert kept is not None and kept.nickname == "Caz"
    await upsert_members(db_pool, [Member(G, 4, username="carol")], nicknames_known=True)
    member = await get_member(db_pool, G, 4)
    assert member is not None
    assert member.nickname is None and member.display_name == "carol"
    assert "Caz" in member.aliases  # people may still call her that
