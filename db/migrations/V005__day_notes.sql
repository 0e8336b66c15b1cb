-- Incremental summaries: a day is read in passes (stretches of time), each message once.
-- A pass covers messages with created_at in [start_at, end_at); its fingerprint is what the
-- messages of that stretch looked like when it was read, so an edit, delete or late message
-- re-does only that stretch. Each pass leaves a note per member it concerned.
CREATE TABLE day_passes (
    guild_id     bigint NOT NULL,
    day          date NOT NULL,
    start_at     timestamptz NOT NULL,
    end_at       timestamptz NOT NULL,
    fingerprint  text NOT NULL,
    provider     text,
    computed_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (guild_id, day, start_at)
);

CREATE TABLE day_notes (
    guild_id  bigint NOT NULL,
    day       date NOT NULL,
    start_at  timestamptz NOT NULL,
    user_id   bigint NOT NULL,
    note      text NOT NULL DEFAULT '',
    PRIMARY KEY (guild_id, day, start_at, user_id),
    FOREIGN KEY (guild_id, day, start_at)
        REFERENCES day_passes (guild_id, day, start_at) ON DELETE CASCADE
);
CREATE INDEX day_notes_member_idx ON day_notes (guild_id, user_id, day);
