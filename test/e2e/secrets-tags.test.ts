// Secret tags through REST (seed 2 "Tag"): CRUD, name pattern and uniqueness, colour default,
// read-only slug, DELETE removing the tag from every secret and nothing else, resolveTags,
// access and tenant isolation.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertOrg, insertSite } from '../support/tenants.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';
import { resolveTags } from '../../subgraphs/secrets/tag.service.js';
import type { RequestContext } from '../../subgraphs/core/context.js';

const SHOP = 'shop.tags.test';
const OTHER = 'other.tags.test';

let t: TestApp;
let tok: Record<string, string>;
let shopId: number;

const q = async (sql: string, params: unknown[] = []) => (await t.platform.pool.query(sql, params)).rows;
const call = (method: string, url: string, who: string | null, body?: unknown, host = SHOP) =>
  t.call(method, url, { token: who ? tok[who] : undefined, host, body });

beforeAll(async () => {
  t = await startTestApp();
  const users: User[] = await Promise.all([1, 2, 3, 4].map(() => t.createUser()));
  const [owner, outsider, viewer, reader] = users;
  tok = { owner: t.tokenFor(owner), outsider: t.tokenFor(outsider), viewer: t.tokenFor(viewer), reader: t.tokenFor(reader) };
  const acme = await insertOrg(t.platform, 'tags-acme', owner.id);
  shopId = (await insertSite(t.platform, acme.id, 'tags-shop', SHOP)).id;
  const member = `INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', $3)`;
  await q(member, [acme.id, viewer.id, ['view_site']]);
  await q(member, [acme.id, reader.id, ['view_site', 'secrets:read']]);
  const other = await insertOrg(t.platform, 'tags-other', outsider.id);
  await insertSite(t.platform, other.id, 'tags-other', OTHER);
});
afterAll(() => t.close());

describe('tags', () => {
  test('create → 201 with generated slug and default colour; list {items, count, next, previous}', async () => {
    const res = await call('POST', '/api/tags/', 'owner', { name: 'Production_DB', description: 'live' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      name: 'Production_DB',
      slug: 'production-db',
      description: 'live',
      color: '#6B7280',
      created_at: expect.any(String),
      modified_at: expect.any(String),
    });
    const red = await call('POST', '/api/tags/', 'owner', { name: 'critical', color: '#ff0000' });
    expect(red.body).toMatchObject({ slug: 'critical', color: '#FF0000', description: '' });
    // Different name, same slug base: the slug gets a suffix.
    expect((await call('POST', '/api/tags/', 'owner', { name: 'production-db' })).body.slug).toBe('production-db-2');
    const list = await call('GET', '/api/tags/', 'reader');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ count: 3, next: null, previous: null });
    expect(list.body.items.map((i: any) => i.name)).toEqual(['Production_DB', 'critical', 'production-db']);
    expect((await call('GET', '/api/tags/?page_size=1&page=2', 'reader')).body).toMatchObject({
      count: 3,
      next: expect.stringContaining('page=3'),
      previous: expect.any(String),
    });
  });

  test('400: name pattern, missing name, bad colour, read-only slug, duplicate name', async () => {
    for (const body of [
      { name: 'has space' },
      { name: 'ümlaut' },
      {},
      { name: 'ok', color: 'red' },
      { name: 'ok', color: '#12345' },
      { name: 'ok', slug: 'mine' },
    ]) {
      const res = await call('POST', '/api/tags/', 'owner', body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String), detail: expect.any(Object) });
    }
    const dup = await call('POST', '/api/tags/', 'owner', { name: 'critical' });
    expect(dup.status).toBe(400);
    expect(dup.body.detail.name).toEqual([expect.stringContaining('already exists')]);
  });

  test('GET one; PATCH partial; PUT replaces; slug stays on rename', async () => {
    expect((await call('GET', '/api/tags/critical/', 'reader')).body.name).toBe('critical');
    const patched = await call('PATCH', '/api/tags/critical/', 'owner', { description: 'pager' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'critical', description: 'pager', color: '#FF0000' });
    const put = await call('PUT', '/api/tags/critical/', 'owner', { name: 'Sev1' });
    expect(put.body).toMatchObject({ name: 'Sev1', slug: 'critical', description: '', color: '#6B7280' });
    expect((await call('PUT', '/api/tags/critical/', 'owner', { description: 'no name' })).status).toBe(400);
    expect((await call('PATCH', '/api/tags/critical/', 'owner', { name: 'Production_DB' })).status).toBe(400);
    expect((await call('PATCH', '/api/tags/critical/', 'owner', { name: 'bad name' })).status).toBe(400);
  });

  test('resolveTags: by name or slug, without repeats; 400 naming unknown tags', async () => {
    const ctx = { site: { id: shopId }, platform: t.platform } as unknown as RequestContext;
    const found = await resolveTags(ctx, t.platform.pool, ['Sev1', 'critical', 'production-db']);
    expect(found.map((r) => r.slug).sort()).toEqual(['critical', 'production-db', 'production-db-2']);
    await t.platform.prisma.$transaction(async (tx) => {
      expect((await resolveTags(ctx, tx, ['Production_DB'])).map((r) => r.slug)).toEqual(['production-db']);
    });
    await expect(resolveTags(ctx, t.platform.pool, ['critical', 'ghost'])).rejects.toMatchObject({
      status: 400,
      errors: { tags: [expect.stringContaining('ghost')] },
    });
  });

  test('DELETE → 200 {message, detail}; removed from every secret, secrets otherwise unchanged', async () => {
    const [type] = await q(`SELECT id FROM secret_types WHERE site_id = $1 AND slug = 'json'`, [shopId]);
    const [secret] = await q(
      `INSERT INTO secrets (site_id, key, secret_type_id, value_plain) VALUES ($1, 'cfg', $2, '{"a": 1}') RETURNING *`,
      [shopId, type.id],
    );
    const tags = await q(`SELECT id, slug FROM secret_tags WHERE site_id = $1 AND slug IN ('critical', 'production-db')`, [shopId]);
    for (const tag of tags) await q('INSERT INTO secret_tag_links (secret_id, tag_id) VALUES ($1, $2)', [secret.id, tag.id]);
    const res = await call('DELETE', '/api/tags/critical/', 'owner');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String), detail: expect.any(String) });
    expect((await call('GET', '/api/tags/critical/', 'reader')).status).toBe(404);
    const links = await q('SELECT t.slug FROM secret_tag_links l JOIN secret_tags t ON t.id = l.tag_id WHERE l.secret_id = $1', [
      secret.id,
    ]);
    expect(links.map((l) => l.slug)).toEqual(['production-db']);
    const [after] = await q('SELECT * FROM secrets WHERE id = $1', [secret.id]);
    expect(after).toEqual(secret);
  });
});

describe('access and isolation', () => {
  test('401 in the platform envelope without credentials', async () => {
    for (const [m, u] of [
      ['GET', '/api/tags/'],
      ['POST', '/api/tags/'],
      ['GET', '/api/tags/x/'],
      ['PUT', '/api/tags/x/'],
      ['PATCH', '/api/tags/x/'],
      ['DELETE', '/api/tags/x/'],
    ]) {
      const res = await call(m, u, null, {});
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: expect.any(String), code: 'not_authenticated', status_code: 401 });
    }
  });

  test('403 without secrets:read (read) or secrets:write (write)', async () => {
    expect((await call('GET', '/api/tags/', 'viewer')).status).toBe(403);
    expect((await call('GET', '/api/tags/production-db/', 'viewer')).status).toBe(403);
    const res = await call('POST', '/api/tags/', 'reader', { name: 'nope' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: expect.any(String), detail: expect.any(String) });
    expect((await call('PATCH', '/api/tags/production-db/', 'reader', { description: 'x' })).status).toBe(403);
    expect((await call('DELETE', '/api/tags/production-db/', 'reader')).status).toBe(403);
  });

  test('another site: 404, never listed; same name allowed there', async () => {
    expect((await call('GET', '/api/tags/production-db/', 'outsider', undefined, OTHER)).status).toBe(404);
    expect((await call('PATCH', '/api/tags/production-db/', 'outsider', { description: 'x' }, OTHER)).status).toBe(404);
    expect((await call('DELETE', '/api/tags/production-db/', 'outsider', undefined, OTHER)).status).toBe(404);
    expect((await call('GET', '/api/tags/', 'outsider', undefined, OTHER)).body).toMatchObject({ items: [], count: 0 });
    const theirs = await call('POST', '/api/tags/', 'outsider', { name: 'Production_DB' }, OTHER);
    expect(theirs.body.slug).toBe('production-db');
    const missing = await call('GET', '/api/tags/nope/', 'reader');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: expect.any(String), detail: expect.any(String) });
  });
});
