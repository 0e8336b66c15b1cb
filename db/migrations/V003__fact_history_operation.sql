-- What a history row did (remember, forget, undo, purge), apart from the free-text command
-- that asked for it: undo must know a forget when it sees one, whatever the member typed.
ALTER TABLE fact_history ADD COLUMN operation text;
UPDATE fact_history SET operation = CASE
    WHEN reverts_id IS NOT NULL THEN 'undo'
    WHEN command ILIKE '%forget%' THEN 'forget'
    ELSE 'remember'
END;
