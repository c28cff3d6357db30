// The storage module's SQL: buckets, objects, their counters and the cleanup queue. Every
// object query names the site (`site_id`) as well as the bucket, so that a wrong bucket id from
// another tenant can never match.
import type pg from 'pg';
import { prepared } from '../core/db.js';
import { queryPage } from '../core/paged-query.js';
import type { PageRequest } from '../core/listing.js';
import type { ProviderName } from './providers/provider.js';

type Q = Pick<pg.Pool, 'query'>;

export interface BucketRow {
  id: number;
  uuid: string;
  siteId: number;
  appId: number;
  name: string;
  slug: string;
  description: string;
  provider: ProviderName;
  visibility: 'private' | 'public';
  fileSizeLimit: number;
  allowedMimeTypes: string[];
  objectCount: number;
  totalSize: number;
  createdById: number | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ObjectRow {
  id: number;
  uuid: string;
  siteId: number;
  bucketId: number;
  filePath: string;
  filename: string;
  size: number;
  mimetype: string;
  metadata: Record<string, unknown>;
  visibility: 'private' | 'public' | null;
  storageKey: string;
  etag: string;
  createdById: number | null;
  modifiedById: number | null;
  createdAt: Date;
  updatedAt: Date;
}

const BUCKET_COLUMNS = `b.id, b.uuid, b.site_id AS "siteId", b.app_id AS "appId", b.name, b.slug, b.description, b.provider,
  b.visibility, b.file_size_limit::float8 AS "fileSizeLimit", b.allowed_mime_types AS "allowedMimeTypes",
  b.object_count AS "objectCount", b.total_size::float8 AS "totalSize", b.created_by_id AS "createdById",
  b.created_at AS "createdAt", b.updated_at AS "updatedAt"`;

export const OBJECT_COLUMNS = `o.id::float8 AS id, o.uuid, o.site_id AS "siteId", o.bucket_id AS "bucketId", o.file_path AS "filePath",
  o.filename, o.size::float8 AS size, o.mimetype, o.metadata, o.visibility, o.storage_key AS "storageKey", o.etag,
  o.created_by_id AS "createdById", o.modified_by_id AS "modifiedById", o.created_at AS "createdAt", o.updated_at AS "updatedAt"`;

/** The columns of the reduced list object (seed 2), plus what access checks need. */
const LIST_COLUMNS = `o.id::float8 AS id, o.uuid, o.filename, o.file_path AS "filePath", o.size::float8 AS size, o.mimetype,
  o.created_at AS "createdAt", o.updated_at AS "updatedAt"`;

export interface NewBucket {
  siteId: number;
  appId: number;
  name: string;
  slug: string;
  description: string;
  provider: ProviderName;
  visibility: 'private' | 'public';
  fileSizeLimit: number;
  allowedMimeTypes: string[];
  createdById: number | null;
}

export interface BucketPatch {
  name?: string;
  description?: string;
  fileSizeLimit?: number;
  allowedMimeTypes?: string[];
  visibility?: 'private' | 'public';
}

export interface ObjectContent {
  storageKey: string;
  size: number;
  mimetype: string;
  etag: string;
}

export interface SqlWhere {
  sql: string;
  params: unknown[];
}

export const storageRepository = {
  async insertBucket(db: Q, b: NewBucket): Promise<BucketRow> {
    const { rows } = await db.query<BucketRow>(
      `INSERT INTO storage_buckets AS b (site_id, app_id, name, slug, description, provider, visibility, file_size_limit, allowed_mime_types, created_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${BUCKET_COLUMNS}`,
      [b.siteId, b.appId, b.name, b.slug, b.description, b.provider, b.visibility, b.fileSizeLimit, b.allowedMimeTypes, b.createdById],
    );
    return rows[0];
  },

  async findBucket(db: Q, siteId: number, appId: number, slug: string, forUpdate = false): Promise<BucketRow | null> {
    const { rows } = await db.query<BucketRow>(
      prepared(
        `SELECT ${BUCKET_COLUMNS} FROM storage_buckets b WHERE b.site_id = $1 AND b.app_id = $2 AND b.slug = $3${forUpdate ? ' FOR UPDATE' : ''}`,
        [siteId, appId, slug],
      ),
    );
    return rows[0] ?? null;
  },

  /** Buckets of an app; `visibleTo` restricts to public ones and those created by a user (null: all). */
  async listBuckets(
    db: Q,
    siteId: number,
    appId: number,
    visibleTo: { userId: number | null } | null,
    page: Pick<PageRequest, 'pageSize' | 'offset'>,
  ): Promise<{ rows: BucketRow[]; count: number }> {
    const params: unknown[] = [siteId, appId];
    let sql = 'b.site_id = $1 AND b.app_id = $2';
    if (visibleTo) {
      params.push(visibleTo.userId);
      sql += ` AND (b.visibility = 'public' OR b.created_by_id = $3)`;
    }
    return queryPage<BucketRow>(db, {
      select: BUCKET_COLUMNS,
      from: 'FROM storage_buckets b',
      where: { sql, params },
      orderBy: 'b.slug',
      page,
    });
  },

  async updateBucket(db: Q, id: number, patch: BucketPatch): Promise<BucketRow> {
    const sets: string[] = [];
    const params: unknown[] = [id];
    const set = (col: string, v: unknown) => {
      params.push(v);
      sets.push(`${col} = $${params.length}`);
    };
    if (patch.name !== undefined) set('name', patch.name);
    if (patch.description !== undefined) set('description', patch.description);
    if (patch.fileSizeLimit !== undefined) set('file_size_limit', patch.fileSizeLimit);
    if (patch.allowedMimeTypes !== undefined) set('allowed_mime_types', patch.allowedMimeTypes);
    if (patch.visibility !== undefined) set('visibility', patch.visibility);
    sets.push('updated_at = now()');
    const { rows } = await db.query<BucketRow>(
      `UPDATE storage_buckets b SET ${sets.join(', ')} WHERE b.id = $1 RETURNING ${BUCKET_COLUMNS}`,
      params,
    );
    return rows[0];
  },

  async deleteBucket(db: Q, id: number): Promise<void> {
    await db.query('DELETE FROM storage_buckets WHERE id = $1', [id]);
  },

  async addToCounters(db: Q, bucketId: number, objects: number, bytes: number): Promise<void> {
    await db.query(
      prepared('UPDATE storage_buckets SET object_count = object_count + $2, total_size = total_size + $3 WHERE id = $1', [
        bucketId,
        objects,
        bytes,
      ]),
    );
  },

  async findObjectByPath(db: Q, siteId: number, bucketId: number, filePath: string, forUpdate = false): Promise<ObjectRow | null> {
    const { rows } = await db.query<ObjectRow>(
      prepared(
        `SELECT ${OBJECT_COLUMNS} FROM storage_objects o WHERE o.site_id = $1 AND o.bucket_id = $2 AND o.file_path = $3${forUpdate ? ' FOR UPDATE' : ''}`,
        [siteId, bucketId, filePath],
      ),
    );
    return rows[0] ?? null;
  },

  async findObjectByUuid(db: Q, siteId: number, bucketId: number, uuid: string, forUpdate = false): Promise<ObjectRow | null> {
    const { rows } = await db.query<ObjectRow>(
      prepared(
        `SELECT ${OBJECT_COLUMNS} FROM storage_objects o WHERE o.site_id = $1 AND o.bucket_id = $2 AND o.uuid = $3::uuid${forUpdate ? ' FOR UPDATE' : ''}`,
        [siteId, bucketId, uuid],
      ),
    );
    return rows[0] ?? null;
  },

  /** Inserts a new object; null when the path was taken meanwhile (the caller updates instead). */
  async insertObject(
    db: Q,
    o: {
      siteId: number;
      bucketId: number;
      filePath: string;
      filename: string;
      metadata: Record<string, unknown>;
      userId: number | null;
      visibility?: string | null;
    } & ObjectContent,
  ): Promise<ObjectRow | null> {
    const { rows } = await db.query<ObjectRow>(
      `INSERT INTO storage_objects AS o (site_id, bucket_id, file_path, filename, size, mimetype, metadata, storage_key, etag, created_by_id, modified_by_id, visibility)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11)
       ON CONFLICT (bucket_id, file_path) DO NOTHING RETURNING ${OBJECT_COLUMNS}`,
      [
        o.siteId,
        o.bucketId,
        o.filePath,
        o.filename,
        o.size,
        o.mimetype,
        JSON.stringify(o.metadata),
        o.storageKey,
        o.etag,
        o.userId,
        o.visibility ?? null,
      ],
    );
    return rows[0] ?? null;
  },

  /** Replaces the content (and metadata) of an object, keeping its uuid. */
  async replaceContent(
    db: Q,
    id: number,
    c: ObjectContent & { filename: string; metadata: Record<string, unknown>; userId: number | null },
  ): Promise<ObjectRow> {
    const { rows } = await db.query<ObjectRow>(
      `UPDATE storage_objects o SET storage_key = $2, size = $3, mimetype = $4, etag = $5, filename = $6, metadata = $7,
         modified_by_id = $8, updated_at = now() WHERE o.id = $1 RETURNING ${OBJECT_COLUMNS}`,
      [id, c.storageKey, c.size, c.mimetype, c.etag, c.filename, JSON.stringify(c.metadata), c.userId],
    );
    return rows[0];
  },

  async updateObject(
    db: Q,
    id: number,
    p: {
      filePath?: string;
      filename?: string;
      metadata?: Record<string, unknown>;
      visibility?: string | null;
      bucketId?: number;
      storageKey?: string;
      userId: number | null;
    },
  ): Promise<ObjectRow> {
    const sets: string[] = [];
    const params: unknown[] = [id];
    const set = (col: string, v: unknown) => {
      params.push(v);
      sets.push(`${col} = $${params.length}`);
    };
    if (p.filePath !== undefined) set('file_path', p.filePath);
    if (p.filename !== undefined) set('filename', p.filename);
    if (p.metadata !== undefined) set('metadata', JSON.stringify(p.metadata));
    if (p.visibility !== undefined) set('visibility', p.visibility);
    if (p.bucketId !== undefined) set('bucket_id', p.bucketId);
    if (p.storageKey !== undefined) set('storage_key', p.storageKey);
    set('modified_by_id', p.userId);
    sets.push('updated_at = now()');
    const { rows } = await db.query<ObjectRow>(
      `UPDATE storage_objects o SET ${sets.join(', ')} WHERE o.id = $1 RETURNING ${OBJECT_COLUMNS}`,
      params,
    );
    return rows[0];
  },

  async deleteObject(db: Q, id: number): Promise<void> {
    await db.query('DELETE FROM storage_objects WHERE id = $1', [id]);
  },

  /** One page of a bucket's objects matching `where` (placeholders $1…, alias `o`, users `cu`/`mu`). */
  async listObjects(
    db: Q,
    where: SqlWhere,
    orderBy: string,
    page: Pick<PageRequest, 'pageSize' | 'offset'>,
    full = false,
  ): Promise<{ rows: ObjectRow[]; count: number }> {
    return queryPage<ObjectRow>(db, { select: full ? OBJECT_COLUMNS : LIST_COLUMNS, from: 'FROM storage_objects o', where, orderBy, page });
  },

  // ---- cleanup queue ----------------------------------------------------------------------

  async enqueueCleanup(db: Q, provider: ProviderName, key: string, isPrefix = false): Promise<number> {
    const { rows } = await db.query<{ id: string }>(
      'INSERT INTO storage_cleanup (provider, key, is_prefix) VALUES ($1, $2, $3) RETURNING id',
      [provider, key, isPrefix],
    );
    return Number(rows[0].id);
  },

  async doneCleanup(db: Q, id: number): Promise<void> {
    await db.query('DELETE FROM storage_cleanup WHERE id = $1', [id]);
  },

  async failedCleanup(db: Q, id: number): Promise<void> {
    await db.query('UPDATE storage_cleanup SET attempts = attempts + 1 WHERE id = $1', [id]);
  },

  async pendingCleanup(db: Q, limit: number): Promise<{ id: number; provider: ProviderName; key: string; isPrefix: boolean }[]> {
    const { rows } = await db.query(
      `SELECT id::float8 AS id, provider, key, is_prefix AS "isPrefix" FROM storage_cleanup ORDER BY id LIMIT $1`,
      [limit],
    );
    return rows;
  },

  /** Storage keys of rows among `keys` (the orphan sweep keeps those). */
  async existingKeys(db: Q, keys: string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const { rows } = await db.query<{ k: string }>('SELECT storage_key AS k FROM storage_objects WHERE storage_key = ANY($1::text[])', [
      keys,
    ]);
    return new Set(rows.map((r) => r.k));
  },

  async bucketUuids(db: Q): Promise<Set<string>> {
    const { rows } = await db.query<{ uuid: string }>('SELECT uuid FROM storage_buckets');
    return new Set(rows.map((r) => r.uuid));
  },
};
