-- A member's own choice about being stored in a guild: 'out' (opted out: nothing of theirs is
-- stored or used) or 'in' (opted in: needed in guilds whose storage setting is 'opted-in').
-- The choice itself is kept through a purge: it is what keeps the member out afterwards.
CREATE TABLE member_consent (
    guild_id    bigint NOT NULL,
    user_id     bigint NOT NULL,
    state       text NOT NULL CHECK (state IN ('out', 'in')),
    changed_at  timestamptz NOT NULL DEFAULT now(),
    changed_by  bigint,
    by_admin    boolean NOT NULL DEFAULT false,
    PRIMARY KEY (guild_id, user_id)
);
