-- Vectors stored at their model's own width (issue 43): the local model's 256 components were
-- padded with zeros to the 768 of a `halfvec(768)` column, so its HNSW graph carried three
-- times the bytes it ranks by (1.95 GB at a million messages, more than the buffers hold next
-- to the messages). The column becomes an untyped `halfvec`, and each stored width gets its
-- own HNSW index, a partial one over an expression (pgvector indexes one width at a time):
-- 256 for the local model, 768 for the API models (db/embeddings.py: STORED_WIDTHS, the
-- queries that use these indexes). The local model's padded rows are cut to their first 256
-- components (the rest were zeros: no distance changes). This file takes over from V027 the
-- run at every start (db/migrate.py): where pgvector appears only later, the table is created
-- here in this shape. Where pgvector cannot be created it does nothing. Idempotent.
DO $$
BEGIN
    CREATE EXTENSION IF NOT EXISTS vector;
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'pgvector unavailable (%): recall uses full-text search only', SQLERRM;
END
$$;

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') THEN
        RETURN;
    END IF;
    EXECUTE $sql$
        CREATE TABLE IF NOT EXISTS message_embeddings (
            guild_id     bigint NOT NULL,
            message_id   bigint NOT NULL,
            model        text NOT NULL,
            content_md5  text NOT NULL,
            embedding    halfvec NOT NULL,
            PRIMARY KEY (guild_id, message_id),
            CONSTRAINT message_embeddings_message_id_fkey
                FOREIGN KEY (guild_id, message_id) REFERENCES messages (guild_id, message_id)
                ON DELETE CASCADE
        )
    $sql$;
    -- V027's shape: one width for every model, one index over it.
    IF EXISTS (
        SELECT 1 FROM pg_attribute
        WHERE attrelid = 'message_embeddings'::regclass AND attname = 'embedding'
          AND atttypmod <> -1
    ) THEN
        DROP INDEX IF EXISTS message_embeddings_hnsw_idx;
        ALTER TABLE message_embeddings ALTER COLUMN embedding TYPE halfvec;
        UPDATE message_embeddings SET embedding = subvector(embedding, 1, 256)
        WHERE model = 'local:wordllama-l2-supercat-256' AND vector_dims(embedding) = 768;
    END IF;
    EXECUTE 'CREATE INDEX IF NOT EXISTS message_embeddings_hnsw_256_idx ON message_embeddings'
            ' USING hnsw ((embedding::halfvec(256)) halfvec_cosine_ops)'
            ' WHERE vector_dims(embedding) = 256';
    EXECUTE 'CREATE INDEX IF NOT EXISTS message_embeddings_hnsw_768_idx ON message_embeddings'
            ' USING hnsw ((embedding::halfvec(768)) halfvec_cosine_ops)'
            ' WHERE vector_dims(embedding) = 768';
END
$$;
