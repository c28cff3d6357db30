-- Data service (seed document 3, DECISIONS §6): the catalogue of each app's datatables. The
-- tables themselves live in the site's schema, created and migrated by the data subgraph.

CREATE TABLE datatables (
  id             SERIAL PRIMARY KEY,
  uuid           UUID NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  site_id        INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  app_id         INTEGER NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
  name           TEXT NOT NULL,
  physical_name  TEXT NOT NULL,
  provider       TEXT NOT NULL CHECK (provider IN ('flat_table', 'jsonb')),
  description    TEXT NOT NULL DEFAULT '',
  schema         JSONB NOT NULL,
  version        INTEGER NOT NULL DEFAULT 1,
  created_by_id  INTEGER,
  created_at     TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  updated_at     TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  UNIQUE (app_id, name)
);

CREATE INDEX datatables_site_id_idx ON datatables (site_id);
