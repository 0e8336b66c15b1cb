"""A computed plan stored under the member's row lock: the blob written (minus whatever was
forgotten meanwhile), forgotten statements added or lifted, and one history row per change.
"""

from __future__ import annotations

from db import facts as store
from db.types import Connection
from memory.facts._model import FactChange, Plan, Provenance
from memory.facts._text import normalise_statement, strip_forgotten


async def store_plan(
    connection: Connection,
    locked: store.FactRecord,
    plan: Plan,
    origin: Provenance,
) -> FactChange:
    """Store a plan; the member's row is locked by the caller's transaction."""
    guild_id, user_id = locked.guild_id, locked.user_id
    # Re-read under the lock: a forget committed since our read must still be honoured.
    records = await store.get_forgotten_records(connection, guild_id, user_id)
    banned = [record.statement for record in records if record.id not in plan.lift]
    new_blob = strip_forgotten(plan.new_blob, banned, plan.names)
    lifted = await store.remove_forgotten(connection, guild_id, user_id, list(plan.lift))
    if plan.forget is not None:
        wanted = normalise_statement(plan.forget)
        if all(normalise_statement(record.statement) != wanted for record in records):
            await store.add_forgotten(connection, guild_id, user_id, plan.forget, origin.actor_id)
    changed = new_blob != locked.blob
    version = locked.version
    if changed:
        version = await store.write_blob(connection, guild_id, user_id, new_blob)
    history_id = None
    if changed or lifted or plan.reverts_id is not None:
        history_id = await store.add_history(
            connection,
            guild_id=guild_id,
            user_id=user_id,
            version=version,
            old_blob=locked.blob,
            new_blob=new_blob,
            actor_id=origin.actor_id,
            command=origin.command,
            statement=plan.statement,
            source_message_id=origin.source_message_id,
            reverts_id=plan.reverts_id,
            operation=origin.operation,
        )
    return FactChange(
        guild_id,
        user_id,
        locked.blob,
        new_blob,
        version,
        changed=changed,
        found=plan.found,
        history_id=history_id,
        unforgotten=lifted,
        dropped=plan.dropped,
    )
