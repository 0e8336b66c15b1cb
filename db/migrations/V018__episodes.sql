-- Episodes: a channel's conversation cut where it went quiet, changed topic or was told to
-- ("anyway, ..."). Segmentation is a pure function of the stored messages (memory/episodes),
-- so live chat, backfill and imports give the same rows. An episode is keyed by its channel
-- and first message, so cutting a stretch again keeps the rows (and summaries) that did not move.
CREATE TABLE episodes (
    id                bigserial PRIMARY KEY,
    guild_id          bigint NOT NULL,
    channel_id        bigint NOT NULL,
    first_message_id  bigint NOT NULL,
    last_message_id   bigint NOT NULL,
    started_at        timestamptz NOT NULL,
    ended_at          timestamptz NOT NULL,
    message_count     integer NOT NULL,
    -- Authors of its messages (not a member column: purge handles episodes itself).
    member_ids        bigint[] NOT NULL DEFAULT '{}',
    -- open: still being talked; closed: cut off (silence, shift, marker); stale: an edit or
    -- delete touched a closed one, its summary is redone.
    state             text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'closed', 'stale')),
    title             text NOT NULL DEFAULT '',
    summary           text NOT NULL DEFAULT '',
    open_loops        text[] NOT NULL DEFAULT '{}',
    -- How many messages the summary covered (0: none yet); a summary is due when a closed or
    -- stale episode's count differs, or it is stale.
    summarized_count  integer NOT NULL DEFAULT 0,
    provider          text,
    updated_at        timestamptz NOT NULL DEFAULT now(),
    search            tsvector GENERATED ALWAYS AS
                          (to_tsvector('simple', title || ' ' || summary)) STORED,
    UNIQUE (channel_id, first_message_id)
);
CREATE INDEX episodes_channel_time_idx ON episodes (channel_id, started_at DESC);
CREATE INDEX episodes_guild_time_idx ON episodes (guild_id, ended_at DESC);
CREATE INDEX episodes_search_idx ON episodes USING gin (search);
CREATE INDEX episodes_due_idx ON episodes (guild_id)
    WHERE state = 'stale' OR (state = 'closed' AND summarized_count <> message_count);
CREATE INDEX episodes_open_idx ON episodes (ended_at) WHERE state = 'open';

-- An edit or delete of a message inside an episode: its words may no longer be served, so the
-- summary text goes at once and a closed episode is summarised again (like a stale day).
CREATE FUNCTION episodes_message_changed() RETURNS trigger AS $$
BEGIN
    UPDATE episodes e
       SET state = CASE WHEN e.state = 'open' THEN 'open' ELSE 'stale' END,
           title = '', summary = '', open_loops = '{}', summarized_count = 0,
           updated_at = now()
     WHERE e.channel_id = NEW.channel_id
       AND NEW.created_at BETWEEN e.started_at AND e.ended_at;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER episodes_message_changed
    AFTER UPDATE OF content, deleted ON messages
    FOR EACH ROW
    WHEN (OLD.content IS DISTINCT FROM NEW.content OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION episodes_message_changed();

-- The daily digest of a guild-day: composed once by a job (the primary key makes it once
-- however many workers run), then claimed and posted by one bot process.
CREATE TABLE episode_digests (
    guild_id     bigint NOT NULL,
    day          date NOT NULL,
    channel_id   bigint,
    text         text NOT NULL DEFAULT '',
    composed_at  timestamptz NOT NULL DEFAULT now(),
    claimed_at   timestamptz,
    posted_at    timestamptz,
    PRIMARY KEY (guild_id, day)
);
CREATE INDEX episode_digests_unposted_idx ON episode_digests (guild_id)
    WHERE posted_at IS NULL AND text <> '';
