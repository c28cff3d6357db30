// One contract for every storage provider (issue 13 item 1): local files, S3 against a real
// S3-compatible server (s3rver) started here, and Microsoft Graph against a local fake of the
// drive endpoints (test/support/graph-fake.ts), each through its real client code.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import S3rver from 's3rver';
import { GraphProvider } from '../../subgraphs/storage/providers/graph.provider.js';
import { LocalProvider } from '../../subgraphs/storage/providers/local.provider.js';
import { ProviderNotFound, type StorageProvider } from '../../subgraphs/storage/providers/provider.js';
import { S3Provider } from '../../subgraphs/storage/providers/s3.provider.js';
import { createProviders } from '../../subgraphs/storage/providers/factory.js';
import type { Config } from '../../subgraphs/core/config.js';
import { startGraphFake, type GraphFake } from '../support/graph-fake.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tenantry-providers-'));
let s3server: S3rver;
let s3: S3Provider;
/** The same S3 server through the factory, which imports the AWS SDK on first use. */
let s3Lazy: StorageProvider;
let graphFake: GraphFake;
let graph: GraphProvider;
const local = new LocalProvider(path.join(tmp, 'local'));

beforeAll(async () => {
  s3server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: path.join(tmp, 's3rver') });
  const addr = await s3server.run();
  const settings = {
    endpoint: `http://127.0.0.1:${addr.port}`,
    region: 'us-east-1',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    bucketPrefix: 'tenantry-test',
    forcePathStyle: true,
  };
  s3 = new S3Provider(settings);
  const config = { dataDir: tmp, storage: { s3: { ...settings, bucketPrefix: 'tenantry-lazy' }, graph: null } } as unknown as Config;
  s3Lazy = createProviders(config).get('object_store')!;
  const creds = { tenantId: 'tenant-1', clientId: 'client-1', clientSecret: 'secret-1' };
  graphFake = await startGraphFake(creds);
  graph = new GraphProvider(
    { ...creds, baseUrl: `${graphFake.url}/v1.0`, authorityUrl: graphFake.url, siteId: 'root' },
    path.join(tmp, 'graph-spool'),
  );
});
afterAll(async () => {
  s3.close();
  await new Promise<void>((r) => s3server.close(() => r()));
  await graphFake.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const collect = async (s: Readable) => {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};

/** A body that fails after `n` bytes (a client disconnecting, a limit cut-off). */
function failingAfter(data: Buffer, n: number): Readable {
  let sent = 0;
  const src = Readable.from(
    (function* () {
      for (let i = 0; i < data.length; i += 64 * 1024) yield data.subarray(i, i + 64 * 1024);
    })(),
  );
  const cut = new Transform({
    transform(chunk: Buffer, _e, cb) {
      sent += chunk.length;
      if (sent > n) return cb(new Error('client went away'));
      cb(null, chunk);
    },
  });
  return src.pipe(cut);
}

const PROVIDERS: [string, () => StorageProvider][] = [
  ['local files', () => local],
  ['S3 (s3rver)', () => s3],
  ['S3 through the factory (s3rver)', () => s3Lazy],
  ['Microsoft Graph (fake)', () => graph],
];

describe.each(PROVIDERS)('%s', (name, get) => {
  const bucket = `b-${name.replace(/\W+/g, '').toLowerCase()}`;

  test('put, get, ranges, copy, list, delete', async () => {
    const p = get();
    await p.put(`${bucket}/one.txt`, Readable.from([Buffer.from('hello '), Buffer.from('world')]), 'text/plain');
    expect((await collect(await p.get(`${bucket}/one.txt`))).toString()).toBe('hello world');
    expect((await collect(await p.get(`${bucket}/one.txt`, { start: 6, end: 10 }))).toString()).toBe('world');
    await p.copy(`${bucket}/one.txt`, `${bucket}/two.txt`);
    expect((await collect(await p.get(`${bucket}/two.txt`))).toString()).toBe('hello world');
    expect((await p.list(`${bucket}/`)).sort()).toEqual([`${bucket}/one.txt`, `${bucket}/two.txt`]);
    await p.delete(`${bucket}/one.txt`);
    await p.delete(`${bucket}/never-existed.txt`);
    await expect(p.get(`${bucket}/one.txt`)).rejects.toBeInstanceOf(ProviderNotFound);
    await p.deletePrefix(`${bucket}/`);
    expect(await p.list(`${bucket}/`)).toEqual([]);
  });

  test('a large body (multipart / upload session) arrives whole', async () => {
    const p = get();
    const big = Buffer.alloc(12 * 1024 * 1024 + 12345);
    for (let i = 0; i < big.length; i += 4096) big.writeUInt32LE(i, i);
    await p.put(
      `${bucket}/big.bin`,
      Readable.from(
        (function* () {
          for (let i = 0; i < big.length; i += 256 * 1024) yield big.subarray(i, i + 256 * 1024);
        })(),
      ),
      'application/octet-stream',
    );
    const back = await collect(await p.get(`${bucket}/big.bin`));
    expect(back.length).toBe(big.length);
    expect(back.equals(big)).toBe(true);
    await p.deletePrefix(`${bucket}/`);
  }, 120_000);

  test('a body that fails mid-stream leaves nothing behind', async () => {
    const p = get();
    const data = Buffer.alloc(10 * 1024 * 1024, 7);
    await expect(p.put(`${bucket}/broken.bin`, failingAfter(data, 9 * 1024 * 1024), 'application/octet-stream')).rejects.toThrow(
      /went away/,
    );
    await expect(p.get(`${bucket}/broken.bin`)).rejects.toBeInstanceOf(ProviderNotFound);
    expect(await p.list(`${bucket}/`)).toEqual([]);
  }, 120_000);
});

test('local provider: no temporary file is left after a failed write', async () => {
  await expect(local.put('x/broken', failingAfter(Buffer.alloc(300 * 1024), 100 * 1024))).rejects.toThrow();
  expect(fs.readdirSync(path.join(tmp, 'local', '.tmp'))).toEqual([]);
});

test('graph provider: client-credentials token reused; view and edit links', async () => {
  await graph.put('docs/report.docx', Readable.from([Buffer.from('PK fake docx')]));
  const anon = await graph.link('docs/report.docx', { mode: 'view', anonymous: true });
  expect(anon).toMatch(/anon=1/);
  const edit = await graph.link('docs/report.docx', { mode: 'edit', anonymous: false, email: 'u@example.test' });
  expect(edit).toMatch(/\/doc\//);
  expect(graphFake.invites).toContainEqual({ path: 'docs/report.docx', email: 'u@example.test', roles: ['write'] });
  expect(graphFake.tokensIssued).toBe(1);
});
