-- Recall search: full-text vectors of every retained message and every stored summary, with
-- GIN indexes. The 'simple' configuration (no stemming, no stop words) works for any language;
-- question words are dropped from queries instead (memory/recall). Deleted messages have no
-- content, so they match nothing; purged and retention-deleted rows take their vectors along.
ALTER TABLE messages
    ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('simple', content)) STORED;
CREATE INDEX messages_search_idx ON messages USING gin (search);

ALTER TABLE daily_summaries
    ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('simple', summary)) STORED;
CREATE INDEX daily_summaries_search_idx ON daily_summaries USING gin (search);
