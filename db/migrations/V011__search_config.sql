-- Text search configuration per guild: 'simple' (no stemming, any language) unless an admin
-- picks another (english, german, ...). The search vectors of messages and day summaries stop
-- being generated columns (a generated column cannot read the guild row) and are filled by
-- triggers with the guild's configuration; changing it re-indexes that guild's rows
-- (db/recall.py) in the transaction that changes the setting.
ALTER TABLE guilds ADD COLUMN search_config regconfig NOT NULL DEFAULT 'simple';

-- The guild's configuration, key-share locked so that a vector written while an admin changes
-- the configuration waits for the change and uses the new one (the change re-indexes only the
-- rows it can see). KEY SHARE does not conflict with name refreshes of the guild row. The lock
-- lasts until the transaction ends, so the configuration cannot change before then: the last
-- guild's is kept in one transaction-local setting ('guild:config') and the next rows of the
-- same guild in the batch skip the lookup.
CREATE FUNCTION guild_search_config(guild bigint) RETURNS regconfig
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    known text := coalesce(current_setting('memorybot.search_config', true), '');
    config regconfig;
BEGIN
    IF split_part(known, ':', 1) = guild::text THEN
        RETURN split_part(known, ':', 2)::regconfig;
    END IF;
    SELECT search_config INTO config FROM guilds WHERE guild_id = guild FOR KEY SHARE;
    config := coalesce(config, 'simple'::regconfig);
    PERFORM set_config('memorybot.search_config', guild || ':' || config::text, true);
    RETURN config;
END
$$;

CREATE FUNCTION messages_search_vector() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.search := to_tsvector(guild_search_config(NEW.guild_id), NEW.content);
    RETURN NEW;
END
$$;

CREATE FUNCTION daily_summaries_search_vector() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.search := to_tsvector(guild_search_config(NEW.guild_id), NEW.summary);
    RETURN NEW;
END
$$;

-- Existing vectors were made with 'simple', the default: they stay as they are.
ALTER TABLE messages ALTER COLUMN search DROP EXPRESSION;
CREATE TRIGGER messages_search BEFORE INSERT OR UPDATE OF content ON messages
    FOR EACH ROW EXECUTE FUNCTION messages_search_vector();

ALTER TABLE daily_summaries ALTER COLUMN search DROP EXPRESSION;
CREATE TRIGGER daily_summaries_search BEFORE INSERT OR UPDATE OF summary ON daily_summaries
    FOR EACH ROW EXECUTE FUNCTION daily_summaries_search_vector();
