-- The names an opted-out member had, so `user optin --user frank` still finds them after the
-- purge deleted their directory row. Only keyed hashes are kept (sha256 of guild id and the
-- case-folded name), never the names: they match a name typed again, and say nothing alone.
ALTER TABLE member_consent ADD COLUMN name_keys text[] NOT NULL DEFAULT '{}';
CREATE INDEX member_consent_name_keys_idx ON member_consent USING gin (name_keys);
