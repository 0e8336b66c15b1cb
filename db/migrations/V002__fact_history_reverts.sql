-- Undo walks back through a member's fact history: an undo row points at the change it
-- reverted, so a second undo reverts the change before it instead of undoing the undo.
ALTER TABLE fact_history ADD COLUMN reverts_id bigint REFERENCES fact_history (id) ON DELETE SET NULL;
CREATE INDEX fact_history_reverts_idx ON fact_history (reverts_id) WHERE reverts_id IS NOT NULL;
