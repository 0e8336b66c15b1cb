-- The embeddings table keyed and tied to its message by (guild_id, message_id), as V026 keys
-- messages (issue 46: Citus distributes both by guild_id and co-locates them). This file
-- takes over from V012 the run at every start (db/migrate.py): it creates pgvector and the
-- table once the extension can be created (installed after the first start), in this shape,
-- and brings a table of V012's shape to it. Where pgvector cannot be created it does nothing
-- and recall stays full-text only. Idempotent.
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
            embedding    halfvec(768) NOT NULL,
            PRIMARY KEY (guild_id, message_id),
            CONSTRAINT message_embeddings_message_id_fkey
                FOREIGN KEY (guild_id, message_id) REFERENCES messages (guild_id, message_id)
                ON DELETE CASCADE
        )
    $sql$;
    EXECUTE 'CREATE INDEX IF NOT EXISTS message_embeddings_hnsw_idx ON message_embeddings'
            ' USING hnsw (embedding halfvec_cosine_ops)';
    -- V012's shape: the key on message_id alone (its foreign key went with V026).
    IF EXISTS (
        SELECT 1 FROM pg_index
        WHERE indrelid = 'message_embeddings'::regclass AND indisprimary AND indnatts = 1
    ) THEN
        ALTER TABLE message_embeddings DROP CONSTRAINT IF EXISTS message_embeddings_message_id_fkey;
        ALTER TABLE message_embeddings DROP CONSTRAINT message_embeddings_pkey;
        ALTER TABLE message_embeddings ADD PRIMARY KEY (guild_id, message_id);
        -- The primary key's index serves the guild's lookups.
        DROP INDEX IF EXISTS message_embeddings_guild_idx;
    END IF;
    IF NOT EXISTS (
        SELECT 1 FROM pg_constraint
        WHERE conname = 'message_embeddings_message_id_fkey'
          AND conrelid = 'message_embeddings'::regclass
    ) THEN
        -- Embeddings of messages gone while no key held them go first.
        DELETE FROM message_embeddings e
        WHERE NOT EXISTS (
            SELECT 1 FROM messages m
            WHERE m.guild_id = e.guild_id AND m.message_id = e.message_id
        );
        ALTER TABLE message_embeddings ADD CONSTRAINT message_embeddings_message_id_fkey
            FOREIGN KEY (guild_id, message_id) REFERENCES messages (guild_id, message_id)
            ON DELETE CASCADE;
    END IF;
END
$$;
