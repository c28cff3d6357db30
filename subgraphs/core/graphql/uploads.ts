// GraphQL multipart requests (graphql-multipart-request-spec, read by graphql-upload-minimal):
// the gateway's /graphql and a subgraph server accept them so that a mutation can take an
// `Upload` argument (storage's `uploadObject`). The `operations` and `map` fields are parsed
// first; each file then streams from the request, in order, to whichever resolver reads its
// `Upload` — nothing is buffered or written to a temporary file here. Browsers can send a
// multipart form without a CORS preflight, so the request must carry a header a form cannot
// set (`apollo-require-preflight`, as Apollo Server's own CSRF rule), checked before the body
// is read. Bounds: at most MAX_UPLOAD_FILES files, each at most MAX_UPLOAD_FILE_BYTES (the
// largest bucket limit; each bucket's own limit is enforced while the file streams), and the
// JSON fields within the platform's body limit.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { processRequest, Upload, type GraphQLOperation } from 'graphql-upload-minimal';
import { AppError, errors } from '../errors.js';

/** Files per request. */
export const MAX_UPLOAD_FILES = 10;
/** The largest file a bucket may accept (bucket.service.ts MAX_FILE_SIZE_LIMIT). */
export const MAX_UPLOAD_FILE_BYTES = 5 * 1024 * 1024 * 1024;
/** Headers a browser form cannot send without a preflight (Apollo Server's CSRF prevention list). */
export const PREFLIGHT_HEADERS = ['apollo-require-preflight', 'x-apollo-operation-name'] as const;

export function isMultipartRequest(headers: IncomingMessage['headers']): boolean {
  return /^multipart\/form-data\b/i.test(String(headers['content-type'] ?? ''));
}

export function hasPreflightHeader(headers: IncomingMessage['headers']): boolean {
  return PREFLIGHT_HEADERS.some((h) => {
    const v = headers[h];
    return typeof v === 'string' && v.length > 0;
  });
}

/** The refusal of a multipart request without a preflight header (nothing of its body is read). */
export const preflightMissing = () =>
  new AppError({
    code: 'csrf_prevention',
    status: 400,
    message: 'A GraphQL multipart request (file upload) needs the header "apollo-require-preflight: true".',
  });

/**
 * Parses `operations` and `map` of a multipart request; the files stay in the request stream,
 * each reachable through its `Upload` placed in the operation's variables.
 */
export async function readMultipartOperations(
  req: IncomingMessage,
  res: ServerResponse,
  fieldLimit: number,
): Promise<GraphQLOperation | GraphQLOperation[]> {
  try {
    // One byte over the largest limit: the upload guard (not busboy's silent truncation) fails it.
    return await processRequest(req, res, { maxFiles: MAX_UPLOAD_FILES, maxFileSize: MAX_UPLOAD_FILE_BYTES + 1, maxFieldSize: fieldLimit });
  } catch (e) {
    const status = (e as { status?: number }).status;
    const message = (e as Error).message || 'Malformed multipart request.';
    if (status === 413) throw new AppError({ code: 'payload_too_large', status: 413, message });
    throw errors.parse(message.slice(0, 300));
  }
}

/** Every `Upload` in a value, with its path (`variables.file`, `variables.files.0` …). */
export function uploadsIn(value: unknown, path = 'variables', out: Array<{ path: string; upload: Upload }> = [], depth = 0) {
  if (value instanceof Upload) out.push({ path, upload: value });
  else if (value && typeof value === 'object' && depth < 32) {
    for (const [k, v] of Object.entries(value)) uploadsIn(v, `${path}.${k}`, out, depth + 1);
  }
  return out;
}

/**
 * Reads and drops every file no resolver consumed (an operation refused before its resolver
 * ran), so that the request body is drained and the connection can answer. Bounded by the
 * per-file limit of the parser.
 */
export function discardUploads(operations: unknown): void {
  const list = Array.isArray(operations) ? operations : [operations];
  for (const op of list) {
    for (const { upload } of uploadsIn((op as { variables?: unknown } | null)?.variables)) {
      upload.promise.then(
        (file) => {
          try {
            file.createReadStream().resume();
          } catch {
            // Already read by its resolver.
          }
        },
        () => undefined,
      );
    }
  }
}
