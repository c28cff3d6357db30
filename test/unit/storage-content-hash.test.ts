// The upload hash (subgraphs/storage/content-hash.ts) and the upload guard around it: the ETag is
// the SHA-256 of the bytes whatever their chunking and size (inline under 1 MiB, on the worker
// beyond), the worker's backlog is bounded, and an abandoned hash is forgotten.
import crypto from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BLOCK, StreamHash } from '../../subgraphs/storage/content-hash.js';
import { UploadGuard } from '../../subgraphs/storage/upload-guard.js';

const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

function bytes(n: number, seed = 1): Buffer {
  const b = Buffer.allocUnsafe(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    b[i] = x >>> 24;
  }
  return b;
}

function chunks(b: Buffer, sizes: number[]): Buffer[] {
  const out: Buffer[] = [];
  for (let off = 0, i = 0; off < b.length; i++) {
    const n = sizes[i % sizes.length];
    out.push(b.subarray(off, off + n));
    off += n;
  }
  return out;
}

async function feed(data: Buffer, sizes: number[]): Promise<string> {
  const h = new StreamHash();
  for (const c of chunks(data, sizes)) {
    h.update(c);
    if (h.saturated) await h.drained();
  }
  return h.digest();
}

test('digest equals SHA-256 of the bytes for sizes around the inline bound and odd chunkings', async () => {
  for (const n of [1, 4100, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 12345, 9 * BLOCK]) {
    const data = bytes(n, n);
    for (const sizes of [[65536], [1, 7, 65521], [BLOCK + 3], [4 * BLOCK]]) {
      expect(await feed(data, sizes)).toBe(sha256(data));
    }
  }
  expect(await new StreamHash().digest()).toBe(sha256(Buffer.alloc(0)));
});

test('concurrent bodies hash independently; the backlog is bounded', async () => {
  const a = bytes(12 * BLOCK + 5, 3);
  const b = bytes(5 * BLOCK - 7, 4);
  const ha = new StreamHash();
  let maxSaturatedFeeds = 0;
  for (const c of chunks(a, [BLOCK])) {
    ha.update(c);
    if (ha.saturated) maxSaturatedFeeds++;
  }
  // Fed without waiting: the guard would have waited; the hash still completes.
  expect(maxSaturatedFeeds).toBeGreaterThan(0);
  const [da, db] = await Promise.all([ha.digest(), feed(b, [300_000])]);
  expect(da).toBe(sha256(a));
  expect(db).toBe(sha256(b));
});

test('a dropped hash ignores later bytes and its digest fails', async () => {
  const h = new StreamHash();
  h.update(bytes(2 * BLOCK));
  h.drop();
  h.update(bytes(BLOCK));
  await expect(h.digest()).rejects.toThrow(/abandoned/);
  // The worker still serves the next body.
  const data = bytes(3 * BLOCK, 9);
  expect(await feed(data, [65536])).toBe(sha256(data));
});

test('UploadGuard: passes every byte through, detects the type and answers the SHA-256', async () => {
  const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), bytes(3 * BLOCK + 17, 5)]);
  const guard = new UploadGuard({ limit: png.length, allowed: ['image/*'], filename: 'x.bin' });
  const out: Buffer[] = [];
  await pipeline(
    Readable.from(chunks(png, [1000, 65536])),
    guard,
    new Writable({
      write(c: Buffer, _e, cb) {
        out.push(c);
        cb();
      },
    }),
  );
  expect(Buffer.concat(out).equals(png)).toBe(true);
  expect(guard.size).toBe(png.length);
  expect(guard.mimetype).toBe('image/png');
  expect(await guard.etag()).toBe(sha256(png));
});

test('UploadGuard: over the limit and empty bodies fail', async () => {
  const sink = () => new Writable({ write: (_c, _e, cb) => cb() });
  const big = new UploadGuard({ limit: 2 * BLOCK, allowed: [], filename: 'a.txt' });
  await expect(pipeline(Readable.from(chunks(bytes(3 * BLOCK), [65536])), big, sink())).rejects.toMatchObject({ code: 'file_too_large' });
  const empty = new UploadGuard({ limit: 10, allowed: [], filename: 'a.txt' });
  await expect(pipeline(Readable.from([]), empty, sink())).rejects.toMatchObject({ code: 'empty_file' });
});
