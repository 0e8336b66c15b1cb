-- A day summarised by a fallback provider (e.g. offline while Gemini was down) is usable but
-- second-best: it is retried with the primary provider once `retry_after` has passed.
ALTER TABLE summary_days ADD COLUMN retry_after timestamptz;
