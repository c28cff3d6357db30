-- Secrets (seed document 2, DECISIONS §9): types, secrets at site and app tier, tags,
-- history without values, and per-site data keys wrapped by the master key.

CREATE TABLE secret_data_keys (
  id             SERIAL PRIMARY KEY,
  site_id        INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  version        INTEGER NOT NULL,
  wrapped_key    BYTEA NOT NULL,
  master_key_id  TEXT NOT NULL,
  created_at     TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  retired_at     TIMESTAMPTZ(6),
  UNIQUE (site_id, version)
);

CREATE TABLE secret_types (
  id                SERIAL PRIMARY KEY,
  site_id           INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  slug              TEXT NOT NULL,
  name              TEXT NOT NULL,
  description       TEXT NOT NULL DEFAULT '',
  type              TEXT NOT NULL DEFAULT 'custom',
  sensitivity_level TEXT NOT NULL DEFAULT 'private',
  schema            JSONB NOT NULL DEFAULT '{}',
  created_by_id     INTEGER,
  created_at        TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  modified_at       TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  UNIQUE (site_id, slug),
  UNIQUE (site_id, name)
);

CREATE TABLE secret_tags (
  id          SERIAL PRIMARY KEY,
  site_id     INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  name        TEXT NOT NULL,
  slug        TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  color       TEXT NOT NULL DEFAULT '#6B7280',
  created_at  TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  modified_at TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  UNIQUE (site_id, name),
  UNIQUE (site_id, slug)
);

CREATE TABLE secrets (
  id             SERIAL PRIMARY KEY,
  uuid           UUID NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  site_id        INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  app_id         INTEGER REFERENCES apps(id) ON DELETE CASCADE,
  key            TEXT NOT NULL,
  secret_type_id INTEGER NOT NULL REFERENCES secret_types(id) ON DELETE RESTRICT,
  -- public values in plain JSON; private and sensitive ones only as AES-256-GCM ciphertext
  value_plain    JSONB,
  ciphertext     BYTEA,
  iv             BYTEA,
  auth_tag       BYTEA,
  key_version    INTEGER,
  created_by_id  INTEGER,
  modified_by_id INTEGER,
  created_at     TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  modified_at    TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  CHECK ((value_plain IS NOT NULL) <> (ciphertext IS NOT NULL))
);
CREATE INDEX secrets_site_id_idx ON secrets (site_id);
CREATE INDEX secrets_secret_type_id_idx ON secrets (secret_type_id);
-- A key is unique per tier: once at site level, once per app.
CREATE UNIQUE INDEX secrets_site_tier_key ON secrets (site_id, key) WHERE app_id IS NULL;
CREATE UNIQUE INDEX secrets_app_tier_key ON secrets (app_id, key) WHERE app_id IS NOT NULL;

CREATE TABLE secret_tag_links (
  secret_id INTEGER NOT NULL REFERENCES secrets(id) ON DELETE CASCADE,
  tag_id    INTEGER NOT NULL REFERENCES secret_tags(id) ON DELETE CASCADE,
  PRIMARY KEY (secret_id, tag_id)
);
CREATE INDEX secret_tag_links_tag_id_idx ON secret_tag_links (tag_id);

CREATE TABLE secret_history (
  id          BIGSERIAL PRIMARY KEY,
  site_id     INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  app_id      INTEGER,
  app_slug    TEXT,
  key         TEXT NOT NULL,
  secret_type TEXT NOT NULL,
  action      TEXT NOT NULL,
  user_id     INTEGER,
  username    TEXT,
  changes     JSONB NOT NULL DEFAULT '{}',
  created_at  TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
CREATE INDEX secret_history_site_id_key_idx ON secret_history (site_id, key);
