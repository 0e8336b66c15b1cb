-- memorybot initial schema. Ids are Discord snowflakes (bigint); names live in `members` and
-- are resolved only when a prompt is built.

CREATE TABLE guilds (
    guild_id    bigint PRIMARY KEY,
    name        text,
    timezone    text NOT NULL DEFAULT 'UTC',
    settings    jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Member directory, kept fresh from Discord events and imports.
CREATE TABLE members (
    guild_id     bigint NOT NULL,
    user_id      bigint NOT NULL,
    username     text,
    global_name  text,
    nickname     text,
    aliases      text[] NOT NULL DEFAULT '{}',
    is_bot       boolean NOT NULL DEFAULT false,
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (guild_id, user_id)
);
CREATE INDEX members_username_idx ON members (guild_id, lower(username));
CREATE INDEX members_global_name_idx ON members (guild_id, lower(global_name));
CREATE INDEX members_nickname_idx ON members (guild_id, lower(nickname));
CREATE INDEX members_aliases_idx ON members USING gin (aliases);

-- Raw chat. Idempotent on message_id; deletes blank the content (privacy) and set `deleted`.
CREATE TABLE messages (
    message_id   bigint PRIMARY KEY,
    guild_id     bigint NOT NULL,
    channel_id   bigint NOT NULL,
    author_id    bigint NOT NULL,
    content      text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL,
    reply_to_id  bigint,
    mention_ids  bigint[] NOT NULL DEFAULT '{}',
    author_is_bot boolean NOT NULL DEFAULT false,
    edited_at    timestamptz,
    deleted      boolean NOT NULL DEFAULT false,
    ingested_at  timestamptz NOT NULL DEFAULT now()
);
-- Daily batches read one guild's day in time order.
CREATE INDEX messages_guild_time_idx ON messages (guild_id, created_at);
-- Per-member reads (export, purge, activity).
CREATE INDEX messages_guild_author_time_idx ON messages (guild_id, author_id, created_at);
-- Backfill: newest stored message per channel.
CREATE INDEX messages_channel_id_idx ON messages (channel_id, message_id DESC);
-- Retention deletes by age across guilds.
CREATE INDEX messages_created_idx ON messages (created_at);

-- Factual memory: one third-person blob per (guild, member). `version` guards concurrent writers.
CREATE TABLE user_facts (
    guild_id    bigint NOT NULL,
    user_id     bigint NOT NULL,
    blob        text NOT NULL DEFAULT '',
    version     integer NOT NULL DEFAULT 0,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (guild_id, user_id)
);

-- Every change to a blob: provenance, audit and undo.
CREATE TABLE fact_history (
    id                 bigserial PRIMARY KEY,
    guild_id           bigint NOT NULL,
    user_id            bigint NOT NULL,
    version            integer NOT NULL,
    old_blob           text NOT NULL,
    new_blob           text NOT NULL,
    actor_id           bigint,
    command            text NOT NULL,
    statement          text,
    source_message_id  bigint,
    created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX fact_history_member_idx ON fact_history (guild_id, user_id, id DESC);

-- Statements a member asked to forget: later merges and summaries must not bring them back.
CREATE TABLE forgotten_statements (
    id          bigserial PRIMARY KEY,
    guild_id    bigint NOT NULL,
    user_id     bigint NOT NULL,
    statement   text NOT NULL,
    actor_id    bigint,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX forgotten_statements_member_idx ON forgotten_statements (guild_id, user_id);

-- One row per summarised guild-day, even when nobody had anything to say: the day is done.
-- `stale` is set when a message of that day is edited or deleted.
CREATE TABLE summary_days (
    guild_id        bigint NOT NULL,
    day             date NOT NULL,
    message_count   integer NOT NULL,
    max_message_id  bigint,
    stale           boolean NOT NULL DEFAULT false,
    provider        text,
    computed_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (guild_id, day)
);
CREATE INDEX summary_days_stale_idx ON summary_days (guild_id) WHERE stale;

-- Per-member daily summaries of a summarised day; an empty summary means "nothing to say".
CREATE TABLE daily_summaries (
    guild_id    bigint NOT NULL,
    day         date NOT NULL,
    user_id     bigint NOT NULL,
    summary     text NOT NULL DEFAULT '',
    PRIMARY KEY (guild_id, day, user_id),
    FOREIGN KEY (guild_id, day) REFERENCES summary_days (guild_id, day) ON DELETE CASCADE
);
CREATE INDEX daily_summaries_member_idx ON daily_summaries (guild_id, user_id, day DESC);

-- Days 2-7 rolled into one narrative per member, keyed by the last day it covers.
CREATE TABLE historical_summaries (
    guild_id     bigint NOT NULL,
    user_id      bigint NOT NULL,
    end_day      date NOT NULL,
    summary      text NOT NULL DEFAULT '',
    source_hash  text NOT NULL,
    computed_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (guild_id, user_id, end_day)
);

-- Final merged context per member: the last known good one, with the content hash of its inputs
-- so an unchanged input set is served without a merge call, even after a restart.
CREATE TABLE merged_contexts (
    guild_id      bigint NOT NULL,
    user_id       bigint NOT NULL,
    context       text NOT NULL,
    content_hash  text NOT NULL,
    sources       jsonb NOT NULL DEFAULT '{}'::jsonb,
    computed_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (guild_id, user_id)
);
