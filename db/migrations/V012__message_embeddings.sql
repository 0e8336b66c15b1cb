-- Semantic recall: one embedding per message, from the configured EMBEDDING_PROVIDER, kept
-- with the md5 of the text it was made from (an edited message is embedded again). halfvec:
-- 2 bytes a component (1.5 KB a message), plenty for ranking. A table of its own, so a model
-- change never rewrites `messages`, and purge, opt-out, deletes and retention cascade to it.
-- Needs the pgvector extension (the embedded server and the Compose image ship it). Where it cannot be
-- created (not installed, or no privilege), nothing here is created and recall stays
-- full-text only; the bot says so when EMBEDDING_PROVIDER is set. Every later start runs this
-- file again (db/migrate.py: it is idempotent), so installing pgvector afterwards is enough.
DO $$
BEGIN
    CREATE EXTENSION IF NOT EXISTS vector;
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'pgvector unavailable (%): recall uses full-text search only', SQLERRM;
END
$$;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') THEN
        EXECUTE $sql$
            CREATE TABLE IF NOT EXISTS message_embeddings (
                message_id   bigint PRIMARY KEY REFERENCES messages (message_id) ON DELETE CASCADE,
                guild_id     bigint NOT NULL,
                model        text NOT NULL,
                content_md5  text NOT NULL,
                embedding    halfvec(768) NOT NULL
            )
        $sql$;
        EXECUTE 'CREATE INDEX IF NOT EXISTS message_embeddings_guild_idx'
                ' ON message_embeddings (guild_id)';
        EXECUTE 'CREATE INDEX IF NOT EXISTS message_embeddings_hnsw_idx ON message_embeddings'
                ' USING hnsw (embedding halfvec_cosine_ops)';
    END IF;
END
$$;
