-- The hourly purge of expired credentials (subgraphs/auth, AUTH_PURGE_INTERVAL_MS) finds its
-- rows by expiry instead of reading the whole table.
CREATE INDEX refresh_tokens_expires_at_idx ON refresh_tokens (expires_at);
CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);
