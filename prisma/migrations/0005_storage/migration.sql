-- Storage (seed document 2 "Storage", DECISIONS §8): buckets of an app and their objects. The
-- bytes live in the provider (local files, S3, or a Microsoft Graph drive) under an opaque
-- storage key; the row is the catalogue. Writes order "file first, row second" and "row first,
-- file second" so that a crash leaves at most an orphan file, which storage_cleanup and the
-- cleanup pass remove (docs/storage.md "Crash safety").

CREATE TABLE storage_buckets (
  id                  SERIAL PRIMARY KEY,
  uuid                UUID NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  site_id             INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  app_id              INTEGER NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
  name                TEXT NOT NULL,
  slug                TEXT NOT NULL,
  description         TEXT NOT NULL DEFAULT '',
  provider            TEXT NOT NULL CHECK (provider IN ('object_store', 'document_library')),
  visibility          TEXT NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'public')),
  file_size_limit     BIGINT NOT NULL,
  allowed_mime_types  TEXT[] NOT NULL DEFAULT '{}',
  object_count        INTEGER NOT NULL DEFAULT 0,
  total_size          BIGINT NOT NULL DEFAULT 0,
  created_by_id       INTEGER,
  created_at          TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  updated_at          TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  UNIQUE (app_id, slug)
);

CREATE INDEX storage_buckets_site_id_idx ON storage_buckets (site_id);

CREATE TABLE storage_objects (
  id              BIGSERIAL PRIMARY KEY,
  uuid            UUID NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  site_id         INTEGER NOT NULL,
  bucket_id       INTEGER NOT NULL REFERENCES storage_buckets(id) ON DELETE CASCADE,
  file_path       TEXT NOT NULL,
  filename        TEXT NOT NULL,
  size            BIGINT NOT NULL,
  mimetype        TEXT NOT NULL,
  metadata        JSONB NOT NULL DEFAULT '{}',
  visibility      TEXT CHECK (visibility IN ('private', 'public')),
  storage_key     TEXT NOT NULL,
  etag            TEXT NOT NULL,
  created_by_id   INTEGER,
  modified_by_id  INTEGER,
  created_at      TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  updated_at      TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  UNIQUE (bucket_id, file_path)
);

-- Orderings and filters of the object list (seed 2 "Object list parameters").
CREATE INDEX storage_objects_bucket_created_idx ON storage_objects (bucket_id, created_at);
CREATE INDEX storage_objects_bucket_updated_idx ON storage_objects (bucket_id, updated_at);
CREATE INDEX storage_objects_bucket_size_idx ON storage_objects (bucket_id, size);
CREATE INDEX storage_objects_bucket_filename_idx ON storage_objects (bucket_id, filename);
CREATE INDEX storage_objects_bucket_mimetype_idx ON storage_objects (bucket_id, mimetype);
CREATE INDEX storage_objects_bucket_created_by_idx ON storage_objects (bucket_id, created_by_id);
-- Case-insensitive prefix and substring matches on path and filename, and metadata search.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX storage_objects_path_lower_idx ON storage_objects (bucket_id, lower(file_path) text_pattern_ops);
CREATE INDEX storage_objects_path_trgm_idx ON storage_objects USING gin (lower(file_path) gin_trgm_ops);
CREATE INDEX storage_objects_filename_trgm_idx ON storage_objects USING gin (lower(filename) gin_trgm_ops);
CREATE INDEX storage_objects_metadata_trgm_idx ON storage_objects USING gin (lower(metadata::text) gin_trgm_ops);

-- Provider content waiting to be removed: a deleted bucket's prefix, a replaced or deleted
-- object's key. Written in the same transaction as the row change, removed once the provider
-- has deleted the content; the cleanup pass retries what is left.
CREATE TABLE storage_cleanup (
  id          BIGSERIAL PRIMARY KEY,
  provider    TEXT NOT NULL,
  key         TEXT NOT NULL,
  is_prefix   BOOLEAN NOT NULL DEFAULT false,
  attempts    INTEGER NOT NULL DEFAULT 0,
  created_at  TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
