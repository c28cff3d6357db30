// Parsing of object paths, metadata and headers (bounded: path length, metadata size and depth).
import { storageErrors } from './storage-errors.js';

export const MAX_PATH = 1024;
export const MAX_METADATA_BYTES = 64 * 1024;
const MAX_METADATA_DEPTH = 10;
const MAX_METADATA_HEADERS = 50;

/** A bucket-relative path: no leading slash, no empty, `.` or `..` segment, no control characters. */
export function parsePath(raw: unknown, field = 'path'): string {
  if (typeof raw !== 'string') throw storageErrors.validation({ [field]: ['must be a string'] });
  const p = raw.replace(/^\/+/, '');
  if (p === '') throw storageErrors.validation({ [field]: ['may not be blank'] });
  if (p.length > MAX_PATH) throw storageErrors.validation({ [field]: [`must be at most ${MAX_PATH} characters`] });
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(p) || p.endsWith('/') || p.split('/').some((s) => s === '' || s === '.' || s === '..')) {
    throw storageErrors.validation({ [field]: ['must be a relative path without empty, "." or ".." segments or a trailing slash'] });
  }
  return p;
}

export const filenameOf = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

function depth(v: unknown, d = 0): number {
  if (v === null || typeof v !== 'object') return d;
  let max = d + 1;
  for (const x of Object.values(v)) max = Math.max(max, depth(x, d + 1));
  return max;
}

/** A metadata object (from JSON text or a parsed body), bounded in size and depth. */
export function parseMetadata(raw: unknown, field = 'metadata'): Record<string, unknown> {
  let v = raw;
  if (typeof raw === 'string') {
    if (raw.length > MAX_METADATA_BYTES) throw storageErrors.validation({ [field]: [`must be at most ${MAX_METADATA_BYTES} bytes`] });
    if (raw.trim() === '') return {};
    try {
      v = JSON.parse(raw);
    } catch {
      throw storageErrors.validation({ [field]: ['must be a JSON object'] });
    }
  }
  if (v === null || v === undefined) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw storageErrors.validation({ [field]: ['must be a JSON object'] });
  if (JSON.stringify(v).length > MAX_METADATA_BYTES)
    throw storageErrors.validation({ [field]: [`must be at most ${MAX_METADATA_BYTES} bytes`] });
  if (depth(v) > MAX_METADATA_DEPTH) throw storageErrors.validation({ [field]: [`must be at most ${MAX_METADATA_DEPTH} levels deep`] });
  return v as Record<string, unknown>;
}

/** `X-Metadata-<Name>` and `X-Amz-Meta-<Name>` headers as lower-case hyphenated metadata keys. */
export function metadataFromHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  let n = 0;
  for (const [name, value] of Object.entries(headers)) {
    const m = /^x-(?:metadata|amz-meta)-(.+)$/i.exec(name);
    if (!m || value === undefined) continue;
    if (++n > MAX_METADATA_HEADERS) throw storageErrors.validation({ metadata: [`at most ${MAX_METADATA_HEADERS} metadata headers`] });
    const key = m[1].toLowerCase().replace(/_/g, '-');
    const v = Array.isArray(value) ? value.join(', ') : value;
    if (v.length > 2048) throw storageErrors.validation({ metadata: [`header ${name} is longer than 2048 characters`] });
    out[key] = v;
  }
  return out;
}
