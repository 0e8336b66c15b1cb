-- Who may read each channel, as the bot last saw it on Discord (or as an admin marked an
-- imported one): `public` = @everyone can view it (a thread: its parent is public and the
-- thread is not private). Shared memory (day notes, summaries, learned facts, contexts) is
-- built only from messages of channels that are public here or have no row at all (unknown
-- channels, such as imported ones nobody marked, count as public), unless the guild's
-- settings say memory_sources = 'all'.
CREATE TABLE channel_visibility (
    guild_id    bigint NOT NULL,
    channel_id  bigint NOT NULL,
    parent_id   bigint,
    kind        text NOT NULL DEFAULT 'text',
    public      boolean NOT NULL,
    name        text,
    source      text NOT NULL DEFAULT 'discord' CHECK (source IN ('discord', 'admin')),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (guild_id, channel_id)
);
-- Shared-memory reads look up the few restricted channels of a guild.
CREATE INDEX channel_visibility_restricted ON channel_visibility (guild_id, channel_id)
    WHERE NOT public;
