-- Platform core: users, organizations, sites, domains, access, apps, authentication, audit.
CREATE EXTENSION IF NOT EXISTS pgcrypto;

CREATE TABLE users (
  id            SERIAL PRIMARY KEY,
  uuid          UUID NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  slug          TEXT NOT NULL UNIQUE,
  username      TEXT NOT NULL UNIQUE,
  email         TEXT NOT NULL DEFAULT '',
  password_hash TEXT,
  first_name    TEXT NOT NULL DEFAULT '',
  last_name     TEXT NOT NULL DEFAULT '',
  is_staff      BOOLEAN NOT NULL DEFAULT false,
  is_superuser  BOOLEAN NOT NULL DEFAULT false,
  is_active     BOOLEAN NOT NULL DEFAULT true,
  is_deleted    BOOLEAN NOT NULL DEFAULT false,
  last_login    TIMESTAMPTZ(6),
  created_at    TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  updated_at    TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  deleted_at    TIMESTAMPTZ(6)
);
CREATE INDEX users_email_lower_idx ON users (lower(email));

CREATE TABLE user_profiles (
  user_id    INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  bio        TEXT NOT NULL DEFAULT '',
  avatar_url TEXT NOT NULL DEFAULT '',
  phone      TEXT NOT NULL DEFAULT '',
  timezone   TEXT NOT NULL DEFAULT 'UTC',
  locale     TEXT NOT NULL DEFAULT 'en',
  attributes JSONB NOT NULL DEFAULT '{}'
);

CREATE TABLE organizations (
  id            SERIAL PRIMARY KEY,
  uuid          UUID NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  slug          TEXT NOT NULL UNIQUE,
  name          TEXT NOT NULL,
  is_active     BOOLEAN NOT NULL DEFAULT true,
  is_deleted    BOOLEAN NOT NULL DEFAULT false,
  created_by_id INTEGER,
  created_at    TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  updated_at    TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  deleted_at    TIMESTAMPTZ(6)
);

CREATE TABLE memberships (
  id              SERIAL PRIMARY KEY,
  organization_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id         INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role            TEXT NOT NULL DEFAULT 'member',
  permissions     TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
  joined_at       TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  UNIQUE (organization_id, user_id)
);
CREATE INDEX memberships_user_id_idx ON memberships (user_id);

CREATE TABLE sites (
  id              SERIAL PRIMARY KEY,
  uuid            UUID NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  slug            TEXT NOT NULL UNIQUE,
  name            TEXT NOT NULL,
  description     TEXT NOT NULL DEFAULT '',
  organization_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  schema_name     TEXT NOT NULL UNIQUE,
  environment     TEXT NOT NULL DEFAULT 'development',
  site_settings   JSONB NOT NULL DEFAULT '{}',
  is_active       BOOLEAN NOT NULL DEFAULT true,
  is_deleted      BOOLEAN NOT NULL DEFAULT false,
  created_by_id   INTEGER,
  created_at      TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  updated_at      TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  deleted_at      TIMESTAMPTZ(6)
);
CREATE INDEX sites_organization_id_idx ON sites (organization_id);

CREATE TABLE domains (
  id         SERIAL PRIMARY KEY,
  uuid       UUID NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  slug       TEXT NOT NULL UNIQUE,
  domain     TEXT NOT NULL UNIQUE,
  site_id    INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  is_primary BOOLEAN NOT NULL DEFAULT false,
  is_active  BOOLEAN NOT NULL DEFAULT true,
  created_at TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
CREATE INDEX domains_site_id_idx ON domains (site_id);
-- One primary domain per site, enforced by the database.
CREATE UNIQUE INDEX domains_one_primary_per_site ON domains (site_id) WHERE is_primary;

CREATE TABLE permissions (
  id       SERIAL PRIMARY KEY,
  codename TEXT NOT NULL UNIQUE,
  name     TEXT NOT NULL,
  resource TEXT NOT NULL
);

CREATE TABLE groups (
  id              SERIAL PRIMARY KEY,
  name            TEXT NOT NULL,
  scope           TEXT NOT NULL DEFAULT 'platform',
  organization_id INTEGER REFERENCES organizations(id) ON DELETE CASCADE,
  permissions     TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
  created_at      TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  updated_at      TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);

CREATE TABLE group_members (
  group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
  user_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  added_at TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, user_id)
);
CREATE INDEX group_members_user_id_idx ON group_members (user_id);

CREATE TABLE object_permissions (
  id          SERIAL PRIMARY KEY,
  user_id     INTEGER,
  group_id    INTEGER,
  permission  TEXT NOT NULL,
  object_type TEXT NOT NULL,
  object_id   INTEGER NOT NULL,
  created_at  TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
CREATE INDEX object_permissions_object_type_object_id_idx ON object_permissions (object_type, object_id);
CREATE INDEX object_permissions_user_id_idx ON object_permissions (user_id);
CREATE INDEX object_permissions_group_id_idx ON object_permissions (group_id);

CREATE TABLE invitations (
  id                 SERIAL PRIMARY KEY,
  uuid               UUID NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  organization_id    INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  invitee_identifier TEXT NOT NULL,
  permissions        TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
  invitation_config  JSONB NOT NULL DEFAULT '{}',
  status             TEXT NOT NULL DEFAULT 'pending',
  token_hash         TEXT NOT NULL UNIQUE,
  expires_at         TIMESTAMPTZ(6) NOT NULL,
  invited_by_id      INTEGER,
  accepted_by_id     INTEGER,
  created_at         TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  updated_at         TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
CREATE INDEX invitations_organization_id_idx ON invitations (organization_id);

CREATE TABLE apps (
  id            SERIAL PRIMARY KEY,
  uuid          UUID NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  site_id       INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  slug          TEXT NOT NULL,
  name          TEXT NOT NULL,
  description   TEXT NOT NULL DEFAULT '',
  is_active     BOOLEAN NOT NULL DEFAULT true,
  is_deleted    BOOLEAN NOT NULL DEFAULT false,
  created_by_id INTEGER,
  created_at    TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  updated_at    TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  deleted_at    TIMESTAMPTZ(6),
  UNIQUE (site_id, slug)
);

CREATE TABLE api_keys (
  id            SERIAL PRIMARY KEY,
  uuid          UUID NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  app_id        INTEGER NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
  name          TEXT NOT NULL DEFAULT '',
  prefix        TEXT NOT NULL,
  key_hash      TEXT NOT NULL UNIQUE,
  created_by_id INTEGER,
  created_at    TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  last_used_at  TIMESTAMPTZ(6),
  revoked_at    TIMESTAMPTZ(6)
);
CREATE INDEX api_keys_app_id_idx ON api_keys (app_id);

CREATE TABLE refresh_tokens (
  jti        TEXT PRIMARY KEY,
  family_id  TEXT NOT NULL,
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  expires_at TIMESTAMPTZ(6) NOT NULL,
  used_at    TIMESTAMPTZ(6),
  revoked_at TIMESTAMPTZ(6),
  created_at TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
CREATE INDEX refresh_tokens_family_id_idx ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_user_id_idx ON refresh_tokens (user_id);

CREATE TABLE revoked_access_tokens (
  jti        TEXT PRIMARY KEY,
  expires_at TIMESTAMPTZ(6) NOT NULL
);

CREATE TABLE sessions (
  key_hash   TEXT PRIMARY KEY,
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  csrf_token TEXT NOT NULL,
  expires_at TIMESTAMPTZ(6) NOT NULL,
  created_at TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
CREATE INDEX sessions_user_id_idx ON sessions (user_id);

CREATE TABLE social_accounts (
  id         SERIAL PRIMARY KEY,
  provider   TEXT NOT NULL,
  subject    TEXT NOT NULL,
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  email      TEXT NOT NULL DEFAULT '',
  created_at TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  UNIQUE (provider, subject)
);

CREATE TABLE audit_log (
  id              BIGSERIAL PRIMARY KEY,
  actor_id        INTEGER,
  action          TEXT NOT NULL,
  object_type     TEXT NOT NULL,
  object_id       TEXT NOT NULL,
  organization_id INTEGER,
  site_id         INTEGER,
  changes         JSONB NOT NULL DEFAULT '{}',
  created_at      TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_object_type_object_id_idx ON audit_log (object_type, object_id);
CREATE INDEX audit_log_organization_id_idx ON audit_log (organization_id);
