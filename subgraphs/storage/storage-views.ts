// The REST views of the storage module (seed 2 "Storage"): the seed's snake_case shapes and
// envelopes rendered from the services' domain objects. GraphQL maps the same objects in
// storage.resolvers.ts.
import type { BatchDeleteResult } from './list.service.js';
import type { StorageObject } from './object.service.js';
import type { BucketRow, ObjectRow } from './storage.repository.js';
import type { BatchUploadResult, UploadResult } from './upload.service.js';

export const toBucketRest = (b: BucketRow) => ({
  id: b.id,
  name: b.name,
  slug: b.slug,
  description: b.description,
  provider: b.provider,
  visibility: b.visibility,
  file_size_limit: b.fileSizeLimit,
  allowed_mime_types: b.allowedMimeTypes,
  object_count: b.objectCount,
  total_size: b.totalSize,
  created_at: b.createdAt,
});

/** An object with its metadata (`?metadata=true`, uploads, patch, copy, move). */
export const toObjectRest = (o: StorageObject) => ({
  id: o.id,
  uuid: o.uuid,
  bucket: o.bucketId,
  bucket_slug: o.bucketSlug,
  bucket_name: o.bucketName,
  filename: o.filename,
  file_path: o.filePath,
  file_url: o.url,
  size: o.size,
  mimetype: o.mimetype,
  metadata: o.metadata,
  visibility: o.visibility,
  is_doc_editable: o.isDocEditable,
  created_at: o.createdAt,
  updated_at: o.updatedAt,
  created_by: o.createdById,
  modified_by: o.modifiedById,
});

/** The object view with the seed's legacy `file` alias of `file_path` (copy, move, batch upload). */
export const toObjectRestWithFile = (o: StorageObject) => {
  const v = toObjectRest(o);
  return { ...v, file: v.file_path };
};

/** An object in a list (`GET objects/`, legacy search). */
export const toListItemRest = (o: ObjectRow) => ({
  id: o.id,
  uuid: o.uuid,
  filename: o.filename,
  file_path: o.filePath,
  size: o.size,
  mimetype: o.mimetype,
  created_at: o.createdAt,
  updated_at: o.updatedAt,
});

/** The envelope of a single upload: 201 for a new object, 200 for replaced content. */
export const toUploadRest = (r: UploadResult) => ({
  success: true,
  message: r.created ? 'File uploaded successfully.' : 'File updated successfully.',
  status_code: r.created ? 201 : 200,
  data: toObjectRest(r.object),
});

/** A batch upload: its status (200 all stored, 207 some failed) and envelope. */
export function toBatchUploadRest(r: BatchUploadResult): { status: 200 | 207; body: Record<string, unknown> } {
  const uploaded = r.successful.length;
  const failed = r.failed.length;
  const status = failed === 0 ? 200 : 207;
  return {
    status,
    body: {
      success: failed === 0,
      message: failed === 0 ? `Uploaded ${uploaded} files.` : `Uploaded ${uploaded} files; ${failed} failed.`,
      status_code: status,
      data: {
        uploaded_count: uploaded,
        failed_count: failed,
        total: r.total,
        successful: r.successful.map((s) => ({ index: s.index, path: s.path, object: toObjectRestWithFile(s.object) })),
        failed: r.failed,
      },
    },
  };
}

/** A batch delete: its status (200 all deleted, 207 some failed) and envelope. */
export function toBatchDeleteRest(r: BatchDeleteResult): { status: 200 | 207; body: Record<string, unknown> } {
  const data = { deleted_count: r.deleted, failed: r.failed };
  if (r.failed.length === 0)
    return { status: 200, body: { success: true, message: `Deleted ${r.deleted} objects.`, status_code: 200, data } };
  const message = r.deleted === 0 ? 'No objects were deleted.' : `Deleted ${r.deleted} objects; ${r.failed.length} failed.`;
  return { status: 207, body: { success: r.deleted > 0, message, status_code: 207, data } };
}
