-- What each model endpoint was found to accept (issue 33): the structured-output mode that works
-- (json_schema, json_object_schema, json_object, plain) and whether it takes `tools`. Written on
-- the first refusal, read at start, so a restart does not pay the refusal again.
CREATE TABLE llm_capabilities (
    endpoint text NOT NULL,
    model text NOT NULL,
    structured text NOT NULL DEFAULT 'json_schema',
    tools boolean NOT NULL DEFAULT true,
    reason text NOT NULL DEFAULT '',
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (endpoint, model)
);
