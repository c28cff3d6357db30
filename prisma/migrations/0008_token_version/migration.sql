-- Issue 10 item 4: a per-user token version. Access and refresh tokens carry the version they
-- were issued under (claim `ver`); a password change, an administrator's reset, a deactivation
-- or a refresh-token reuse increments it, so every token issued before stops working.
ALTER TABLE users ADD COLUMN token_version INTEGER NOT NULL DEFAULT 0;
