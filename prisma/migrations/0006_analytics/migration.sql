-- Analytics (seed document 2 "Analytics", DECISIONS §10): saved query templates of an app and
-- the log of their executions (never parameter values, never secret values).

CREATE TABLE analytics_queries (
  id               UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  site_id          INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  app_id           INTEGER NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
  name             TEXT NOT NULL,
  slug             TEXT NOT NULL,
  description      TEXT NOT NULL DEFAULT '',
  connection_type  TEXT NOT NULL DEFAULT 'external' CHECK (connection_type IN ('external', 'internal')),
  secret_key       TEXT,
  query_text       TEXT NOT NULL,
  tags             TEXT[] NOT NULL DEFAULT '{}',
  created_by_id    INTEGER,
  created_at       TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  updated_at       TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  UNIQUE (app_id, slug)
);

CREATE INDEX analytics_queries_site_id_idx ON analytics_queries (site_id);

CREATE TABLE analytics_executions (
  id             BIGSERIAL PRIMARY KEY,
  execution_key  UUID NOT NULL UNIQUE,
  site_id        INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  query_id       UUID NOT NULL REFERENCES analytics_queries(id) ON DELETE CASCADE,
  user_id        INTEGER,
  engine         TEXT NOT NULL,
  status         TEXT NOT NULL,
  error_code     TEXT,
  row_count      INTEGER NOT NULL DEFAULT 0,
  truncated      BOOLEAN NOT NULL DEFAULT false,
  duration_ms    INTEGER NOT NULL DEFAULT 0,
  created_at     TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);

CREATE INDEX analytics_executions_query_id_created_at_idx ON analytics_executions (query_id, created_at);
CREATE INDEX analytics_executions_site_id_idx ON analytics_executions (site_id);
