-- Usage counts every attempt, not only the answered calls: a server refusing every request must
-- show up in `memorybot usage`. `outcome` says what the attempts came to (ok: answered calls;
-- retried, fallback, error, cancelled: attempts without an answer; degraded: answers replaced by
-- the offline result), `error_class` why (the error's class, or the degraded answer's reason),
-- `estimated` whether the tokens are our estimate (the offline provider's) rather than a
-- server's count. Rows written before this migration were answered calls: outcome 'ok'.
ALTER TABLE llm_usage
    ADD COLUMN outcome text NOT NULL DEFAULT 'ok',
    ADD COLUMN error_class text NOT NULL DEFAULT '',
    ADD COLUMN estimated boolean NOT NULL DEFAULT false;

ALTER TABLE llm_usage DROP CONSTRAINT llm_usage_pkey;
ALTER TABLE llm_usage
    ADD PRIMARY KEY (day, guild_id, purpose, provider, model, outcome, error_class, estimated);
