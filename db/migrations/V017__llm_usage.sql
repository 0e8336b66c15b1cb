-- LLM calls and tokens per UTC day, guild (0: none), purpose, provider and model, written when
-- calls complete: `memorybot usage` and the daily token budget read it (telemetry files rotate,
-- this table does not). Every process adds its counts; a row is a running sum.
CREATE TABLE llm_usage (
    day date NOT NULL,
    guild_id bigint NOT NULL DEFAULT 0,
    purpose text NOT NULL,
    provider text NOT NULL,
    model text NOT NULL DEFAULT '',
    calls integer NOT NULL DEFAULT 0,
    input_tokens bigint NOT NULL DEFAULT 0,
    output_tokens bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (day, guild_id, purpose, provider, model)
);
