-- Small facts the bot keeps about itself across restarts and processes, e.g. the hash of the
-- slash command tree last synced to Discord (re-synced only when it changed).
CREATE TABLE bot_state (
    key         text PRIMARY KEY,
    value       text NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);
