-- One active account per e-mail address (case-insensitive), enforced by the database: the
-- service's look-up before an insert cannot see a concurrent create, so two requests for
-- "a@x" and "A@x" could both pass it. Deleted and deactivated accounts keep their address.
DO $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM users WHERE is_active AND NOT is_deleted
    GROUP BY lower(email) HAVING count(*) > 1
  ) THEN
    RAISE EXCEPTION 'Several active users share an e-mail address (case-insensitive). Deactivate or change all but one of them, then start again. Query: SELECT lower(email), array_agg(username) FROM users WHERE is_active AND NOT is_deleted GROUP BY 1 HAVING count(*) > 1';
  END IF;
END $$;

CREATE UNIQUE INDEX users_active_email_key ON users (lower(email)) WHERE is_active AND NOT is_deleted;
