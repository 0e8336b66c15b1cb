-- Gone means gone: when a stored message is deleted (its content blanked) or its text edited,
-- the words leave what was derived from the message itself, whichever path wrote the change
-- (live events, the start-up reconcile, an import):
--   * its embedding (semantic recall must not match the old words; an edit is embedded anew);
--   * learned facts drawn from it (a delete or the author's edit): a fact whose only source it was is deleted (an edited
--     message is read again with its day, which marks it stale, and learns what it says now);
--     a fact with other sources loses it from its provenance.
-- Day notes and summaries follow through the day being marked stale (db/messages.py).
CREATE INDEX IF NOT EXISTS learned_facts_message_ids_idx ON learned_facts USING gin (message_ids);

CREATE OR REPLACE FUNCTION memorybot_message_words_gone() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF to_regclass('message_embeddings') IS NOT NULL THEN
        EXECUTE 'DELETE FROM message_embeddings WHERE message_id = $1' USING NEW.message_id;
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

CREATE TRIGGER messages_words_gone
AFTER UPDATE OF content, deleted ON messages
FOR EACH ROW
WHEN ((NEW.deleted AND NOT OLD.deleted) OR OLD.content IS DISTINCT FROM NEW.content)
EXECUTE FUNCTION memorybot_message_words_gone();
