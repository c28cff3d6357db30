// The content type a provider is given with an upload (S3 stores it as the object's
// Content-Type) is the sniffed one, known before the first byte is stored: not the guard's
// initial application/octet-stream.
import { Readable } from 'node:stream';
import { storeContent } from '../../subgraphs/storage/object.service.js';
import type { BucketTarget } from '../../subgraphs/storage/bucket.service.js';
import type { StorageProvider } from '../../subgraphs/storage/providers/provider.js';

const PNG = Buffer.concat([
  Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex'),
  Buffer.alloc(8000, 7),
]);

function recordingProvider() {
  const seen: { key: string; contentType: string; bytes: number }[] = [];
  const provider = {
    async put(key: string, body: Readable, contentType: string) {
      let bytes = 0;
      for await (const c of body) bytes += (c as Buffer).length;
      seen.push({ key, contentType, bytes });
    },
    async delete() {},
  } as unknown as StorageProvider;
  return { provider, seen };
}

const target = (provider: StorageProvider, allowed: string[] = []) =>
  ({ bucket: { uuid: 'b', fileSizeLimit: 1 << 20, allowedMimeTypes: allowed }, provider }) as unknown as BucketTarget;

describe('storeContent gives the provider the sniffed content type', () => {
  it('a PNG declared as octet-stream is put as image/png', async () => {
    const { provider, seen } = recordingProvider();
    const stored = await storeContent(
      target(provider),
      Readable.from([PNG.subarray(0, 100), PNG.subarray(100)]),
      'x.bin',
      'application/octet-stream',
    );
    expect(stored.mimetype).toBe('image/png');
    expect(seen).toEqual([{ key: stored.storageKey, contentType: 'image/png', bytes: PNG.length }]);
  });

  it('a short text body (shorter than the sniffed head) is put with its declared type', async () => {
    const { provider, seen } = recordingProvider();
    const stored = await storeContent(target(provider), Readable.from([Buffer.from('hello')]), 'a.txt', 'text/plain');
    expect(stored.mimetype).toBe('text/plain');
    expect(seen[0].contentType).toBe('text/plain');
  });

  it('a type the bucket refuses never reaches the provider', async () => {
    const { provider, seen } = recordingProvider();
    await expect(storeContent(target(provider, ['text/plain']), Readable.from([PNG]), 'x.png', 'image/png')).rejects.toMatchObject({
      status: 400,
    });
    expect(seen.every((s) => s.bytes === 0)).toBe(true);
  });
});
