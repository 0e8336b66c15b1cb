-- The names an opted-out member had, so `user optin --user frank` still finds them after the
-- purge deleted their directory row. Only keyed hashes are kept (sha256 of guild id and the
-- case-folded name), never the names: they match a name typed again, and say nothing alone.
ALTER TABLE member_consent ADD COLUMN name_keys text[] NOT NULL DEFAULT '{}';
CREATE INDEX member_consent_name_keys_idx ON member_consent USING gin (name_keys);

-- Channel names as imports and Discord tell them, so output for people says #general rather
-- than a channel id. Channel ids are snowflakes, unique across guilds.
CREATE TABLE channel_names (
    channel_id  bigint PRIMARY KEY,
    guild_id    bigint NOT NULL,
    name        text NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX channel_names_guild_idx ON channel_names (guild_id);
