"""What others' derived memory quoted of a purged member: found and dropped in the purge.

A day note, a day summary, an episode or a digest written while the member still talked may
quote them ("alice said about bob: ...") or, written by a model, paraphrase them without their
name. String surgery cannot be trusted with a paraphrase, so the derived text goes and is made
again from what is left: the passes (stretches of a day read into notes) that read the member's
messages or whose notes name or quote them, every day summary of the days they touched (those
days are marked stale by the purge and closed again from the remaining notes), episodes and
digests that name or quote them. Runs inside the purge's transaction, before the member's
messages are deleted (the passes are found through them).
"""

from __future__ import annotations

from datetime import date

from db.rows import execute_counted, fetch_column
from db.types import Connection

# Words of the member's own messages looked for in derived text: a quote of this many
# characters or more (a shorter one would match common phrases of anyone).
QUOTE_MIN_CHARS = 24
QUOTE_CHARS = 40


async def quotes_of(connection: Connection, guild_id: int, user_id: int) -> list[str]:
    """Lower-cased openings of the member's messages, as a quote of them would carry them."""
    return await fetch_column(
        connection,
        "SELECT DISTINCT lower(left(btrim(content), $3)) AS quote FROM messages"
        " WHERE guild_id = $1 AND author_id = $2 AND length(btrim(content)) >= $4",
        guild_id,
        user_id,
        QUOTE_CHARS,
        QUOTE_MIN_CHARS,
    )


def _carries(column: str, patterns: int, quotes: int) -> str:
    """SQL true when `column` names the member (regexes `$patterns`) or quotes them."""
    return (
        f"({column} ~* ANY(${patterns}::text[]) OR EXISTS (SELECT 1 FROM unnest(${quotes}::text[])"
        f" q WHERE strpos(lower({column}), q) > 0))"
    )


async def drop_passes_reading(
    connection: Connection,
    guild_id: int,
    user_id: int,
    *,
    mention: str,
    patterns: list[str],
    quotes: list[str],
) -> int:
    """Passes that read a message of the member (or one mentioning them), or whose notes name
    or quote them: their notes go (cascade), the stretch is read again without them."""
    return await execute_counted(
        connection,
        f"""
        DELETE FROM day_passes p WHERE p.guild_id = $1 AND (
            EXISTS (SELECT 1 FROM messages m
                    WHERE m.guild_id = p.guild_id AND m.created_at >= p.start_at
                      AND m.created_at < p.end_at
                      AND (m.author_id = $2 OR $2 = ANY(m.mention_ids) OR m.content ~ $3))
            OR EXISTS (SELECT 1 FROM day_notes n
                       WHERE n.guild_id = p.guild_id AND n.day = p.day
                         AND n.start_at = p.start_at AND {_carries("n.note", 4, 5)}))
        """,
        guild_id,
        user_id,
        mention,
        patterns,
        quotes,
    )


async def noted_days(
    connection: Connection, guild_id: int, patterns: list[str], quotes: list[str]
) -> list[date]:
    """Days whose summaries or notes name or quote the member."""
    return await fetch_column(
        connection,
        f"""
        SELECT day FROM daily_summaries WHERE guild_id = $1 AND {_carries("summary", 2, 3)}
        UNION
        SELECT day FROM day_notes WHERE guild_id = $1 AND {_carries("note", 2, 3)}
        """,
        guild_id,
        patterns,
        quotes,
    )


async def blank_episodes(
    connection: Connection, guild_id: int, patterns: list[str], quotes: list[str]
) -> int:
    """Episodes whose title, summary or open loops name or quote the member lose that text;
    a closed one is summarised again (the member's own episodes are cut again elsewhere)."""
    text = "(title || ' ' || summary || ' ' || array_to_string(open_loops, ' '))"
    return await execute_counted(
        connection,
        f"""
        UPDATE episodes SET title = '', summary = '', open_loops = '{{}}', summarized_count = 0,
               state = CASE WHEN state = 'open' THEN 'open' ELSE 'stale' END, updated_at = now()
        WHERE guild_id = $1 AND {_carries(text, 2, 3)}
        """,
        guild_id,
        patterns,
        quotes,
    )


async def blank_digests(
    connection: Connection,
    guild_id: int,
    days: list[date],
    patterns: list[str],
    quotes: list[str],
) -> int:
    """Digests of the member's days, or naming or quoting them, are withdrawn (never posted,
    never shown again)."""
    return await execute_counted(
        connection,
        f"""
        UPDATE episode_digests SET text = ''
        WHERE guild_id = $1 AND text <> ''
          AND (day = ANY($2::date[]) OR {_carries("text", 3, 4)})
        """,
        guild_id,
        days,
        patterns,
        quotes,
    )
