-- One row per rate-limited LLM model: the earliest time the next request may start. Every
-- process reserves its slot here (in one UPDATE), so a requests-per-minute limit holds for all
-- processes on this database together, not for each of them. The job queue's own tables
-- (pgqueuer, pgqueuer_log, pgqueuer_statistics, pgqueuer_schedules) are installed by the
-- library itself after the numbered migrations (db/jobs.py).
CREATE TABLE llm_rate_slots (
    key        text PRIMARY KEY,
    next_slot  timestamptz NOT NULL
);
