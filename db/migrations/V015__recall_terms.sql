-- Recall ranking: how many of a guild's messages hold each word (document frequency), so a
-- search weighs a question's words by rarity (a name said everywhere counts little, "museum"
-- counts a lot). Kept by statement-level triggers from each statement's changed rows, one
-- upsert per distinct word of the batch in (guild, term) order, so writers of one guild queue
-- instead of deadlocking. The row with term '' counts the guild's searchable messages. A word
-- whose count falls to zero loses its row: purge and delete leave none of a member's words.
CREATE TABLE recall_terms (
    guild_id  bigint NOT NULL,
    term      text COLLATE "C" NOT NULL,
    docs      integer NOT NULL,
    PRIMARY KEY (guild_id, term)
) WITH (fillfactor = 70);

INSERT INTO recall_terms (guild_id, term, docs)
SELECT guild_id, term, count(*)::int
FROM (
    SELECT guild_id, unnest(tsvector_to_array(search)) AS term FROM messages
    UNION ALL
    SELECT guild_id, '' FROM messages WHERE length(search) > 0
) words
GROUP BY guild_id, term;

CREATE FUNCTION recall_terms_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO recall_terms AS r (guild_id, term, docs)
    SELECT guild_id, term, count(*)::int
    FROM (
        SELECT guild_id, unnest(tsvector_to_array(search)) AS term FROM new_rows
        UNION ALL
        SELECT guild_id, '' FROM new_rows WHERE length(search) > 0
    ) words
    GROUP BY guild_id, term
    ORDER BY guild_id, term
    ON CONFLICT (guild_id, term) DO UPDATE SET docs = r.docs + EXCLUDED.docs;
    RETURN NULL;
END
$$;

CREATE FUNCTION recall_terms_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE recall_terms r SET docs = r.docs - gone.docs
    FROM (
        SELECT guild_id, term, count(*)::int AS docs
        FROM (
            SELECT guild_id, unnest(tsvector_to_array(search)) AS term FROM old_rows
            UNION ALL
            SELECT guild_id, '' FROM old_rows WHERE length(search) > 0
        ) words
        GROUP BY guild_id, term
        ORDER BY guild_id, term
    ) gone
    WHERE r.guild_id = gone.guild_id AND r.term = gone.term;
    -- A word nobody says any more leaves no row (a purged member's words, ids included).
    DELETE FROM recall_terms r
    WHERE r.docs <= 0
      AND r.guild_id IN (SELECT DISTINCT guild_id FROM old_rows)
      AND r.term IN (SELECT unnest(tsvector_to_array(search)) FROM old_rows UNION ALL SELECT '');
    RETURN NULL;
END
$$;

CREATE FUNCTION recall_terms_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO recall_terms AS r (guild_id, term, docs)
    SELECT guild_id, term, sum(delta)::int
    FROM (
        SELECT n.guild_id, unnest(tsvector_to_array(n.search)) AS term, 1 AS delta
        FROM new_rows n JOIN old_rows o USING (message_id)
        WHERE o.search IS DISTINCT FROM n.search
        UNION ALL
        SELECT n.guild_id, '', 1
        FROM new_rows n JOIN old_rows o USING (message_id)
        WHERE o.search IS DISTINCT FROM n.search AND length(n.search) > 0
        UNION ALL
        SELECT o.guild_id, unnest(tsvector_to_array(o.search)), -1
        FROM new_rows n JOIN old_rows o USING (message_id)
        WHERE o.search IS DISTINCT FROM n.search
        UNION ALL
        SELECT o.guild_id, '', -1
        FROM new_rows n JOIN old_rows o USING (message_id)
        WHERE o.search IS DISTINCT FROM n.search AND length(o.search) > 0
    ) changes
    GROUP BY guild_id, term
    HAVING sum(delta) <> 0
    ORDER BY guild_id, term
    ON CONFLICT (guild_id, term) DO UPDATE SET docs = r.docs + EXCLUDED.docs;
    -- A word nobody says any more leaves no row (a purged member's words, ids included).
    DELETE FROM recall_terms r
    WHERE r.docs <= 0
      AND r.guild_id IN (SELECT DISTINCT guild_id FROM old_rows)
      AND r.term IN (SELECT unnest(tsvector_to_array(search)) FROM old_rows UNION ALL SELECT '');
    RETURN NULL;
END
$$;

CREATE TRIGGER messages_recall_terms_insert AFTER INSERT ON messages
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION recall_terms_insert();
CREATE TRIGGER messages_recall_terms_update AFTER UPDATE ON messages
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION recall_terms_update();
CREATE TRIGGER messages_recall_terms_delete AFTER DELETE ON messages
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION recall_terms_delete();
