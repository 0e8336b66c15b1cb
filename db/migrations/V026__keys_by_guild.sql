-- Every key leads with the guild (issue 46): past one PostgreSQL the engine is Citus, which
-- distributes a table by one column (guild_id here) and can only enforce a primary key, a
-- unique constraint or a foreign key that includes that column. The tables keyed by an id of
-- their own (a message id, a serial, a channel id) get (guild_id, id) instead; ids stay
-- unique (Discord snowflakes and sequences are), so no row changes. Foreign keys follow the
-- same way, and their ON DELETE SET NULL clears only the id, never the guild.
-- The embeddings table (V012, only where pgvector exists) is changed by V027, which every
-- start runs again as it runs V012. tests/db/test_distribution.py checks the catalog.

ALTER TABLE fact_history DROP CONSTRAINT fact_history_reverts_id_fkey;
ALTER TABLE fact_history DROP CONSTRAINT fact_history_pkey;
ALTER TABLE fact_history ADD PRIMARY KEY (guild_id, id);
ALTER TABLE fact_history ADD CONSTRAINT fact_history_reverts_id_fkey
    FOREIGN KEY (guild_id, reverts_id) REFERENCES fact_history (guild_id, id)
    ON DELETE SET NULL (reverts_id);

ALTER TABLE forgotten_statements DROP CONSTRAINT forgotten_statements_pkey;
ALTER TABLE forgotten_statements ADD PRIMARY KEY (guild_id, id);

ALTER TABLE learned_facts DROP CONSTRAINT learned_facts_superseded_by_fkey;
ALTER TABLE learned_facts DROP CONSTRAINT learned_facts_pkey;
ALTER TABLE learned_facts ADD PRIMARY KEY (guild_id, id);
ALTER TABLE learned_facts ADD CONSTRAINT learned_facts_superseded_by_fkey
    FOREIGN KEY (guild_id, superseded_by) REFERENCES learned_facts (guild_id, id)
    ON DELETE SET NULL (superseded_by);

ALTER TABLE episodes DROP CONSTRAINT episodes_pkey;
ALTER TABLE episodes ADD PRIMARY KEY (guild_id, id);
ALTER TABLE episodes DROP CONSTRAINT episodes_channel_id_first_message_id_key;
ALTER TABLE episodes ADD CONSTRAINT episodes_channel_first_message_key
    UNIQUE (guild_id, channel_id, first_message_id);

ALTER TABLE channel_names DROP CONSTRAINT channel_names_pkey;
ALTER TABLE channel_names ADD PRIMARY KEY (guild_id, channel_id);
-- The primary key's index now serves the guild's lookups.
DROP INDEX channel_names_guild_idx;

-- messages last: the embeddings' foreign key on message_id goes first (V027 puts it back
-- as (guild_id, message_id)).
ALTER TABLE IF EXISTS message_embeddings DROP CONSTRAINT IF EXISTS message_embeddings_message_id_fkey;
ALTER TABLE messages DROP CONSTRAINT messages_pkey;
ALTER TABLE messages ADD PRIMARY KEY (guild_id, message_id);

-- Triggers on messages reach other tables by the changed row's guild too, so on Citus each
-- touches the shard of that guild only.
CREATE OR REPLACE FUNCTION memorybot_message_words_gone() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF to_regclass('message_embeddings') IS NOT NULL THEN
        EXECUTE 'DELETE FROM message_embeddings WHERE guild_id = $1 AND message_id = $2'
            USING NEW.guild_id, NEW.message_id;
    END IF;
    -- Only the author's own change (a delete, or an edit: it moves edited_at); a purge that
    -- scrubs a mention out of someone else's message does not unlearn what they said.
    IF NEW.deleted OR NEW.edited_at IS DISTINCT FROM OLD.edited_at THEN
        DELETE FROM learned_facts
        WHERE guild_id = NEW.guild_id AND message_ids = ARRAY[NEW.message_id]::bigint[];
        UPDATE learned_facts SET message_ids = array_remove(message_ids, NEW.message_id)
        WHERE guild_id = NEW.guild_id AND message_ids @> ARRAY[NEW.message_id]::bigint[];
    END IF;
    RETURN NEW;
END
$$;

CREATE OR REPLACE FUNCTION episodes_message_changed() RETURNS trigger AS $$
BEGIN
    UPDATE episodes e
       SET state = CASE WHEN e.state = 'open' THEN 'open' ELSE 'stale' END,
           title = '', summary = '', open_loops = '{}', summarized_count = 0,
           updated_at = now()
     WHERE e.guild_id = NEW.guild_id AND e.channel_id = NEW.channel_id
       AND NEW.created_at BETWEEN e.started_at AND e.ended_at;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
