-- Learned facts: durable statements about members found in chat as it is read (home, origin,
-- job, family, pets, health constraints, hobbies, plans, preferences), kept beyond the 7 days of
-- summaries and beyond raw-message retention. One row per statement; a newer statement on the
-- same subject supersedes the older one (kept, not current). Explicit facts win over these.
CREATE TABLE learned_facts (
    id            bigserial PRIMARY KEY,
    guild_id      bigint NOT NULL,
    user_id       bigint NOT NULL,
    subject       text NOT NULL,
    statement     text NOT NULL,
    said_by       bigint,
    message_ids   bigint[] NOT NULL DEFAULT '{}',
    first_seen    date NOT NULL,
    last_seen     date NOT NULL,
    confidence    real NOT NULL DEFAULT 0.5,
    current       boolean NOT NULL DEFAULT true,
    superseded_by bigint REFERENCES learned_facts (id) ON DELETE SET NULL
);
CREATE INDEX learned_facts_member_idx ON learned_facts (guild_id, user_id, subject);
