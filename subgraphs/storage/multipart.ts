// Streaming multipart/form-data reader (@fastify/busboy) for the upload routes: each file part
// is handed to `onFile` as a stream while the request is still arriving; nothing is buffered
// beyond the parser's own chunks. Text fields are small and bounded.
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { Busboy, type BusboyFileStream } from '@fastify/busboy';
import { errors } from '../core/errors.js';
import { storageErrors } from './storage-errors.js';

export interface FilePart {
  field: string;
  filename: string;
  mimeType: string;
  stream: Readable;
  /** Text fields received before this file part. */
  fieldsSoFar: Record<string, string>;
  index: number;
}

export interface MultipartLimits {
  maxFiles: number;
  maxFields: number;
  /** Bytes of one text field. */
  fieldSize: number;
  /** Field that names the files, for the too-many-files message. */
  filesField?: 'files' | 'file';
}

export function isMultipart(headers: IncomingMessage['headers']): boolean {
  return /^multipart\/form-data\b/i.test(String(headers['content-type'] ?? ''));
}

export function readMultipart<T>(
  req: IncomingMessage,
  limits: MultipartLimits,
  onFile: (part: FilePart) => Promise<T>,
): Promise<{ fields: Record<string, string>; files: T[] }> {
  return new Promise((resolve, reject) => {
    let bb: ReturnType<typeof Busboy>;
    try {
      bb = Busboy({
        headers: req.headers as { 'content-type': string },
        limits: {
          files: limits.maxFiles,
          fields: limits.maxFields,
          fieldSize: limits.fieldSize,
          parts: limits.maxFiles + limits.maxFields,
          headerPairs: 100,
        },
      });
    } catch {
      reject(errors.parse('Malformed multipart/form-data request (boundary missing).'));
      return;
    }
    const fields: Record<string, string> = {};
    const pending: Promise<T>[] = [];
    const active = new Set<BusboyFileStream>();
    let failed = false;
    let index = 0;
    const fail = (e: unknown) => {
      if (failed) return;
      failed = true;
      req.unpipe(bb);
      // Streams still being stored must fail too, so that their providers discard them.
      for (const s of active) s.destroy(e instanceof Error ? e : new Error(String(e)));
      reject(e);
    };
    bb.on('file', (field, stream, filename, _enc, mimeType) => {
      if (failed) return void stream.resume();
      active.add(stream);
      // Errors reach the consumer through its own listener; this one keeps a late error (after
      // the consumer finished) from being an unhandled 'error' event.
      stream.on('error', () => undefined);
      stream.once('end', () => active.delete(stream));
      const p = onFile({ field, filename, mimeType, stream, fieldsSoFar: { ...fields }, index: index++ });
      pending.push(p);
      p.catch(fail);
    });
    bb.on('field', (name, value, _nt, valueTruncated) => {
      if (valueTruncated) return fail(storageErrors.validation({ [name]: [`must be at most ${limits.fieldSize} bytes`] }));
      fields[name] = value;
    });
    bb.on('filesLimit', () =>
      fail(
        limits.filesField === 'files'
          ? storageErrors.batchField('files', `At most ${limits.maxFiles} files per request.`)
          : storageErrors.validation({ file: [`at most ${limits.maxFiles} file per request`] }),
      ),
    );
    bb.on('fieldsLimit', () => fail(storageErrors.validation({ non_field_errors: ['too many form fields'] })));
    bb.on('partsLimit', () => fail(storageErrors.validation({ non_field_errors: ['too many form parts'] })));
    bb.on('error', () => fail(errors.parse('Malformed multipart/form-data body.')));
    bb.on('finish', () => {
      if (failed) return;
      Promise.all(pending).then((files) => resolve({ fields, files }), fail);
    });
    req.on('aborted', () => fail(new Error('The client closed the connection during the upload.')));
    req.on('error', fail);
    req.pipe(bb);
  });
}
