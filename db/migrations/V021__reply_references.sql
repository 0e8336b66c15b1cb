-- The replies to a message, found by its id: a recalled message brings the messages that
-- answer it (its exchange, issue 34), and Discord's reply references say so first.
CREATE INDEX messages_reply_to_idx ON messages (reply_to_id) WHERE reply_to_id IS NOT NULL;
