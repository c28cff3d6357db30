-- Events and functions (seed document 3 "Events", DECISIONS §7): functions of an app, their
-- subscriptions to platform events, the invocation history, and the transactional outbox
-- written in the same transaction as the change an event describes.

CREATE TABLE event_functions (
  id                SERIAL PRIMARY KEY,
  site_id           INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  app_id            INTEGER NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
  name              TEXT NOT NULL,
  slug              TEXT NOT NULL,
  description       TEXT NOT NULL DEFAULT '',
  execution_mode    TEXT NOT NULL DEFAULT 'app',
  code              TEXT NOT NULL DEFAULT '',
  webhook_url       TEXT,
  headers           JSONB NOT NULL DEFAULT '{}',
  webhook_secret    TEXT,
  system_name       TEXT,
  timeout_seconds   INTEGER NOT NULL DEFAULT 300,
  filter_conditions TEXT,
  is_active         BOOLEAN NOT NULL DEFAULT true,
  is_public         BOOLEAN NOT NULL DEFAULT false,
  created_at        TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  updated_at        TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  UNIQUE (app_id, slug)
);
CREATE INDEX event_functions_site_id_idx ON event_functions (site_id);

CREATE TABLE event_subscriptions (
  id          SERIAL PRIMARY KEY,
  site_id     INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  event       TEXT NOT NULL,
  function_id INTEGER NOT NULL REFERENCES event_functions(id) ON DELETE CASCADE,
  created_at  TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  updated_at  TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  UNIQUE (event, function_id)
);
CREATE INDEX event_subscriptions_site_id_event_idx ON event_subscriptions (site_id, event);
CREATE INDEX event_subscriptions_function_id_idx ON event_subscriptions (function_id);

CREATE TABLE event_invocations (
  id              SERIAL PRIMARY KEY,
  site_id         INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  function_id     INTEGER NOT NULL REFERENCES event_functions(id) ON DELETE CASCADE,
  trigger_type    TEXT NOT NULL,
  event           TEXT,
  status          TEXT NOT NULL DEFAULT 'pending',
  task_id         UUID NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  idempotency_key TEXT UNIQUE,
  params          JSONB,
  result          JSONB,
  error           TEXT,
  logs            JSONB NOT NULL DEFAULT '[]',
  attempts        INTEGER NOT NULL DEFAULT 0,
  max_attempts    INTEGER NOT NULL DEFAULT 1,
  deliveries      INTEGER NOT NULL DEFAULT 0,
  dead_letter     BOOLEAN NOT NULL DEFAULT false,
  started_at      TIMESTAMPTZ(6),
  finished_at     TIMESTAMPTZ(6),
  duration_ms     INTEGER,
  created_at      TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
CREATE INDEX event_invocations_site_id_id_idx ON event_invocations (site_id, id);
CREATE INDEX event_invocations_function_id_idx ON event_invocations (function_id);
CREATE INDEX event_invocations_status_created_at_idx ON event_invocations (status, created_at);

CREATE TABLE event_outbox (
  id         BIGSERIAL PRIMARY KEY,
  site_id    INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  app_id     INTEGER,
  event      TEXT NOT NULL,
  payload    JSONB NOT NULL,
  created_at TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
CREATE INDEX event_outbox_created_at_idx ON event_outbox (created_at);
