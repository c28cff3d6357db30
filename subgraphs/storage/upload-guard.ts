// The stream every upload passes through on its way to the provider: it counts bytes and cuts
// the body off past the bucket's limit, holds back the first bytes until the MIME type is known
// (detected from the content with `file-type`, the client's declaration only as a fallback) and
// checked against the bucket's allowed types, hashes the content for the ETag (SHA-256, on a worker
// thread past the first MiB: content-hash.ts) and fails an empty body at its end. Nothing reaches
// the provider before the type is accepted. Chunks pass through as they came (no copies, no
// re-chunking); the only wait is the hash's bounded backlog.
import { Transform, type TransformCallback } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import { storageErrors } from './storage-errors.js';
import { StreamHash } from './content-hash.js';
import { mimeAllowed, mimeFromFilename } from './mime.js';

/** file-type reads at most this many leading bytes. */
const SNIFF_BYTES = 4100;

export interface GuardOptions {
  limit: number;
  allowed: string[];
  declaredType?: string;
  filename: string;
}

export class UploadGuard extends Transform {
  size = 0;
  mimetype = 'application/octet-stream';
  private head: Buffer[] = [];
  private headLen = 0;
  private decided = false;
  private readonly hash = new StreamHash();
  private typeKnown!: (mimetype: string) => void;
  /**
   * The content type once the first bytes are sniffed (or the stream failed or ended): a
   * provider that stores the type with the object (S3) is given it before the upload starts.
   */
  readonly decidedType: Promise<string> = new Promise((resolve) => (this.typeKnown = resolve));

  constructor(private readonly opts: GuardOptions) {
    super({ highWaterMark: 256 * 1024 });
    const settle = () => this.typeKnown(this.mimetype);
    this.once('error', settle);
    this.once('close', settle);
  }

  /** The content's SHA-256 (hex), known once the stream has ended; rejects if hashing failed. */
  etag(): Promise<string> {
    return this.hash.digest();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.opts.limit) return cb(storageErrors.tooLarge(this.opts.limit));
    this.hash.update(chunk);
    if (this.decided) {
      this.push(chunk);
      return this.hash.saturated ? void this.hash.drained().then(() => cb(), cb) : cb();
    }
    this.head.push(chunk);
    this.headLen += chunk.length;
    if (this.headLen < SNIFF_BYTES) return cb();
    this.decide().then(() => cb(), cb);
  }

  override _flush(cb: TransformCallback): void {
    if (this.size === 0) return cb(storageErrors.emptyFile());
    if (this.decided) return this.finish(cb);
    this.decide().then(() => this.finish(cb), cb);
  }

  override _destroy(err: Error | null, cb: (error?: Error | null) => void): void {
    this.hash.drop();
    cb(err);
  }

  /** Starts the digest (it completes while the provider finishes its write) and ends the stream. */
  private finish(cb: TransformCallback): void {
    this.hash.digest().catch(() => undefined);
    cb();
  }

  private async decide(): Promise<void> {
    const head = Buffer.concat(this.head);
    const detected = await fileTypeFromBuffer(head.subarray(0, SNIFF_BYTES)).catch(() => undefined);
    this.mimetype = resolveMime(detected?.mime, this.opts.declaredType, this.opts.filename);
    if (!mimeAllowed(this.mimetype, this.opts.allowed)) throw storageErrors.mimeNotAllowed(this.mimetype, this.opts.allowed);
    this.decided = true;
    this.typeKnown(this.mimetype);
    this.head = [];
    this.push(head);
  }
}

/**
 * The content's own signature wins; without one (text formats), the client's declared type,
 * then the filename's extension. A declared binary type with no matching signature stays as
 * declared: only a detected signature can contradict it.
 */
export function resolveMime(detected: string | undefined, declared: string | undefined, filename: string): string {
  if (detected) return detected;
  const d = (declared ?? '').split(';')[0].trim().toLowerCase();
  if (d && d !== 'application/octet-stream' && /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(d)) return d;
  return mimeFromFilename(filename) ?? 'application/octet-stream';
}
