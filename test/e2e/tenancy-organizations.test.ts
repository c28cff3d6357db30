// Organizations through REST: create (slugs, owner), list filters, read, PUT/PATCH, soft delete
// with its cascade to sites and domains (their hosts stop resolving at once), restore of
// exactly what the cascade touched, and who may do each.
import type { User } from '../../subgraphs/tenancy/user.repository.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { insertOrg, insertSite } from '../support/tenants.js';

let t: TestApp;
let owner: User;
let member: User;
let staff: User;
let outsider: User;
let ownerToken: string;
let memberToken: string;

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.createUser();
  member = await t.createUser();
  staff = await t.createUser({ isStaff: true });
  outsider = await t.createUser();
  ownerToken = t.tokenFor(owner);
  memberToken = t.tokenFor(member);
});
afterAll(() => t.close());

const sql = (text: string, params: unknown[] = []) => t.platform.pool.query(text, params).then((r) => r.rows);

async function createOrg(name: string, token = ownerToken, slug?: string) {
  const res = await t.call('POST', '/api/organizations/', { token, body: slug ? { name, slug } : { name } });
  expect(res.status).toBe(201);
  return res.body;
}

async function addMember(orgSlug: string, user: User, permissions: string[] = []) {
  await sql(
    `INSERT INTO memberships (organization_id, user_id, role, permissions) SELECT id, $2, 'member', $3 FROM organizations WHERE slug = $1`,
    [orgSlug, user.id, permissions],
  );
}

describe('create', () => {
  test('201 with uuid, slug, name, is_active, created; the creator becomes owner', async () => {
    const res = await t.call('POST', '/api/organizations/', { token: ownerToken, body: { name: 'Acme Corp' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ uuid: expect.any(String), slug: 'acme-corp', name: 'Acme Corp', is_active: true });
    expect(new Date(res.body.created).toISOString()).toBe(res.body.created);
    const [m] = await sql(
      'SELECT m.role FROM memberships m JOIN organizations o ON o.id = m.organization_id WHERE o.uuid = $1 AND m.user_id = $2',
      [res.body.uuid, owner.id],
    );
    expect(m.role).toBe('owner');
    const audit = await sql(`SELECT action, actor_id, changes FROM audit_log WHERE object_type = 'organization' AND object_id = $1`, [
      res.body.uuid,
    ]);
    expect(audit).toEqual([{ action: 'create', actor_id: owner.id, changes: { name: 'Acme Corp', slug: 'acme-corp' } }]);
  });

  test('a generated slug takes -2, -3 on collision', async () => {
    const slugs = [];
    for (let i = 0; i < 3; i++) slugs.push((await createOrg('Twin Peaks')).slug);
    expect(slugs).toEqual(['twin-peaks', 'twin-peaks-2', 'twin-peaks-3']);
  });

  test('an explicit slug must be valid (400) and free (409), even of a deleted organization', async () => {
    expect((await createOrg('Custom', ownerToken, 'my-custom')).slug).toBe('my-custom');
    for (const slug of ['Bad Slug', 'UPPER', '-x', '3f2504e0-4f89-11d3-9a0c-0305e82c3301', '']) {
      const res = await t.call('POST', '/api/organizations/', { token: ownerToken, body: { name: 'X', slug } });
      expect(res.status).toBe(400);
      expect(res.body.errors.slug).toBeDefined();
    }
    const taken = await t.call('POST', '/api/organizations/', { token: ownerToken, body: { name: 'Other', slug: 'my-custom' } });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ code: 'conflict', errors: { slug: ['Already in use.'] } });
    await sql(`UPDATE organizations SET is_deleted = true, is_active = false WHERE slug = 'my-custom'`);
    expect((await t.call('POST', '/api/organizations/', { token: ownerToken, body: { name: 'Other', slug: 'my-custom' } })).status).toBe(
      409,
    );
  });

  test('name is required and not blank; anonymous is 401', async () => {
    for (const body of [{}, { name: '   ' }, { name: 7 }]) {
      const res = await t.call('POST', '/api/organizations/', { token: ownerToken, body });
      expect(res.status).toBe(400);
      expect(res.body.errors.name).toBeDefined();
    }
    expect((await t.call('POST', '/api/organizations/', { body: { name: 'Anon' } })).status).toBe(401);
  });

  test('also served under /api/cloud/', async () => {
    const res = await t.call('POST', '/api/cloud/organizations/', { token: ownerToken, body: { name: 'Cloudy' } });
    expect(res.status).toBe(201);
    expect((await t.call('GET', `/api/cloud/organizations/${res.body.slug}/`, { token: ownerToken })).status).toBe(200);
  });
});

describe('list and read', () => {
  let alpha: { uuid: string; slug: string };
  let listToken: string;
  const token = () => listToken;
  beforeAll(async () => {
    listToken = t.tokenFor(await t.createUser());
    alpha = await createOrg('Alpha Listing', listToken);
    await createOrg('Beta Listing', listToken);
    const gone = await createOrg('Gamma Listing', listToken);
    expect((await t.call('DELETE', `/api/organizations/${gone.slug}/`, { token: listToken })).status).toBe(204);
  });

  test('paginated, searchable and ordered; soft-deleted ones only with include_deleted', async () => {
    const res = await t.call('GET', '/api/organizations/?search=listing&ordering=-name', { token: token() });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ count: 2, next: null, previous: null });
    expect(res.body.results.map((o: { name: string }) => o.name)).toEqual(['Beta Listing', 'Alpha Listing']);
    const paged = await t.call('GET', '/api/organizations/?search=listing&page_size=1', { token: token() });
    expect(paged.body.count).toBe(2);
    expect(paged.body.next).toContain('page=2');
    const all = await t.call('GET', '/api/organizations/?search=listing&include_deleted=true', { token: token() });
    expect(all.body.results.map((o: { name: string; is_deleted: boolean }) => [o.name, o.is_deleted])).toEqual([
      ['Alpha Listing', false],
      ['Beta Listing', false],
      ['Gamma Listing', true],
    ]);
    const inactive = await t.call('GET', '/api/organizations/?search=listing&include_deleted=true&is_active=false', { token: token() });
    expect(inactive.body.results.map((o: { name: string }) => o.name)).toEqual(['Gamma Listing']);
  });

  test('a member sees the organization but not deleted ones; staff see every organization', async () => {
    await addMember(alpha.slug, member);
    const mine = await t.call('GET', '/api/organizations/?search=listing&include_deleted=true', { token: memberToken });
    expect(mine.body.results.map((o: { name: string }) => o.name)).toEqual(['Alpha Listing']);
    const staffList = await t.call('GET', '/api/organizations/?search=listing&include_deleted=true', { token: t.tokenFor(staff) });
    expect(staffList.body.count).toBe(3);
  });

  test('bad list parameters answer 400 naming them', async () => {
    for (const q of ['ordering=password', 'is_active=maybe', 'include_deleted=2', 'page=0']) {
      const res = await t.call('GET', `/api/organizations/?${q}`, { token: token() });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors)).toEqual([q.split('=')[0]]);
    }
  });

  test('one organization by slug or UUID (any case); unknown is 404; anonymous 401', async () => {
    const bySlug = await t.call('GET', `/api/organizations/${alpha.slug}/`, { token: token() });
    expect(bySlug.status).toBe(200);
    expect(bySlug.body).toMatchObject({ uuid: alpha.uuid, slug: alpha.slug, name: 'Alpha Listing', is_active: true });
    expect((await t.call('GET', `/api/organizations/${alpha.uuid.toUpperCase()}/`, { token: token() })).body.slug).toBe(alpha.slug);
    expect((await t.call('GET', '/api/organizations/nope/', { token: token() })).body).toMatchObject({
      code: 'not_found',
      status_code: 404,
    });
    expect((await t.call('GET', `/api/organizations/${alpha.slug}/`)).status).toBe(401);
    expect((await t.call('GET', `/api/organizations/${alpha.slug}/`, { token: t.tokenFor(outsider) })).status).toBe(404);
  });

  test('a deleted organization reads as 404, and with include_deleted for its owner', async () => {
    expect((await t.call('GET', '/api/organizations/gamma-listing/', { token: token() })).status).toBe(404);
    const res = await t.call('GET', '/api/organizations/gamma-listing/?include_deleted=true', { token: token() });
    expect(res.body).toMatchObject({ slug: 'gamma-listing', is_active: false, is_deleted: true });
  });
});

describe('update', () => {
  let org: { uuid: string; slug: string };
  beforeAll(async () => {
    org = await createOrg('Renamable');
    await addMember(org.slug, member);
  });

  test('PUT {name, slug} renames; PATCH changes the given field; both audited', async () => {
    const put = await t.call('PUT', `/api/organizations/${org.slug}/`, { token: ownerToken, body: { name: 'Renamed', slug: 'renamed' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ uuid: org.uuid, name: 'Renamed', slug: 'renamed' });
    const patch = await t.call('PATCH', `/api/organizations/${org.uuid}/`, { token: ownerToken, body: { name: 'Renamed Again' } });
    expect(patch.body).toMatchObject({ name: 'Renamed Again', slug: 'renamed' });
    const audit = await sql(`SELECT changes FROM audit_log WHERE object_id = $1 AND action = 'update' ORDER BY id`, [org.uuid]);
    expect(audit.map((a) => a.changes)).toEqual([{ name: 'Renamed', slug: 'renamed' }, { name: 'Renamed Again' }]);
  });

  test('PUT needs a name; slugs are checked (400) and unique (409)', async () => {
    expect(
      (await t.call('PUT', `/api/organizations/${org.uuid}/`, { token: ownerToken, body: { slug: 'x' } })).body.errors.name,
    ).toBeDefined();
    expect((await t.call('PATCH', `/api/organizations/${org.uuid}/`, { token: ownerToken, body: { slug: 'Not Valid' } })).status).toBe(400);
    await createOrg('Taken Slug');
    const res = await t.call('PATCH', `/api/organizations/${org.uuid}/`, { token: ownerToken, body: { slug: 'taken-slug' } });
    expect(res.status).toBe(409);
    expect((await t.call('GET', `/api/organizations/${org.uuid}/`, { token: ownerToken })).body.slug).toBe('renamed');
  });

  test('a plain member may not change it (403); change_organization may; outsiders get 404', async () => {
    expect((await t.call('PATCH', `/api/organizations/${org.uuid}/`, { token: memberToken, body: { name: 'Mine' } })).status).toBe(403);
    await sql(`UPDATE memberships SET permissions = '{change_organization}' WHERE user_id = $1`, [member.id]);
    expect(
      (await t.call('PATCH', `/api/organizations/${org.uuid}/`, { token: memberToken, body: { name: 'Member Renamed' } })).status,
    ).toBe(200);
    expect((await t.call('PATCH', `/api/organizations/${org.uuid}/`, { token: t.tokenFor(outsider), body: { name: 'X' } })).status).toBe(
      404,
    );
    expect(
      (await t.call('PATCH', `/api/organizations/${org.uuid}/`, { token: t.tokenFor(staff), body: { name: 'Staff Renamed' } })).status,
    ).toBe(200);
  });
});

describe('delete and restore', () => {
  let org: { uuid: string; slug: string; id: number };
  let siteHost: string;
  beforeAll(async () => {
    const created = await createOrg('Cascade Co');
    const [row] = await sql('SELECT id FROM organizations WHERE uuid = $1', [created.uuid]);
    org = { ...created, id: row.id };
    await addMember(org.slug, member);
    siteHost = 'cascade.example.test';
    await insertSite(t.platform, org.id, 'cascade-shop', siteHost);
    // A second domain of that site, and a site deleted earlier on its own.
    const [shop] = await sql(`SELECT id FROM sites WHERE slug = 'cascade-shop'`);
    await sql(`INSERT INTO domains (slug, domain, site_id) VALUES ('www-cascade', 'www.cascade.example.test', $1)`, [shop.id]);
    await insertSite(t.platform, org.id, 'cascade-old', 'old.cascade.example.test');
    await sql(`UPDATE sites SET is_active = false, is_deleted = true, deleted_at = now() - interval '1 day' WHERE slug = 'cascade-old'`);
    await sql(`UPDATE domains SET is_active = false WHERE domain = 'old.cascade.example.test'`);
  });

  const siteConfig = (host: string) => t.call('GET', '/api/sites/config/', { token: ownerToken, host });

  test('a member may not delete (403), an outsider gets 404', async () => {
    expect((await t.call('DELETE', `/api/organizations/${org.slug}/`, { token: memberToken })).status).toBe(403);
    expect((await t.call('DELETE', `/api/organizations/${org.slug}/`, { token: t.tokenFor(outsider) })).status).toBe(404);
  });

  test('DELETE soft-deletes the organization, its sites and their domains; hosts answer tenant_not_found at once', async () => {
    expect((await siteConfig(siteHost)).status).toBe(200); // cached as a live tenant
    const res = await t.call('DELETE', `/api/organizations/${org.slug}/`, { token: ownerToken });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const [o] = await sql('SELECT is_active, is_deleted, deleted_at FROM organizations WHERE id = $1', [org.id]);
    expect(o).toMatchObject({ is_active: false, is_deleted: true, deleted_at: expect.any(Date) });
    const sites = await sql('SELECT slug, is_active, is_deleted, deleted_at FROM sites WHERE organization_id = $1 ORDER BY slug', [org.id]);
    expect(sites.find((s) => s.slug === 'cascade-shop')).toMatchObject({ is_active: false, is_deleted: true, deleted_at: o.deleted_at });
    expect(
      (
        await sql(
          `SELECT count(*)::int AS n FROM domains d JOIN sites s ON s.id = d.site_id WHERE s.organization_id = $1 AND d.is_active`,
          [org.id],
        )
      )[0].n,
    ).toBe(0);
    for (const host of [siteHost, 'www.cascade.example.test']) expect((await siteConfig(host)).body.code).toBe('tenant_not_found');
    expect((await t.call('GET', `/api/organizations/${org.slug}/`, { token: ownerToken })).status).toBe(404);
    expect((await t.call('DELETE', `/api/organizations/${org.slug}/`, { token: ownerToken })).status).toBe(404);
    const [audit] = await sql(`SELECT changes FROM audit_log WHERE object_id = $1 AND action = 'delete'`, [org.uuid]);
    expect(audit.changes).toMatchObject({ sites: 1, domains: 2 });
  });

  test('restore: members cannot see it (404); the owner restores what the cascade deleted, nothing more', async () => {
    expect((await t.call('POST', `/api/organizations/${org.slug}/restore/`, { token: memberToken })).status).toBe(404);
    const res = await t.call('POST', `/api/organizations/${org.slug}/restore/`, { token: ownerToken });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ slug: org.slug, is_active: true, is_deleted: false });
    for (const host of [siteHost, 'www.cascade.example.test']) expect((await siteConfig(host)).status).toBe(200);
    const [old] = await sql(`SELECT is_active, is_deleted FROM sites WHERE slug = 'cascade-old'`);
    expect(old).toEqual({ is_active: false, is_deleted: true });
    expect((await siteConfig('old.cascade.example.test')).body.code).toBe('tenant_not_found');
    expect((await t.call('GET', `/api/organizations/${org.slug}/`, { token: memberToken })).status).toBe(200);
  });

  test('restoring a live organization is 400; staff may delete and restore any organization', async () => {
    expect((await t.call('POST', `/api/organizations/${org.slug}/restore/`, { token: ownerToken })).status).toBe(400);
    const staffToken = t.tokenFor(staff);
    expect((await t.call('DELETE', `/api/organizations/${org.uuid}/`, { token: staffToken })).status).toBe(204);
    expect((await t.call('POST', `/api/organizations/${org.uuid}/restore/`, { token: staffToken })).status).toBe(200);
    const actions = await sql(`SELECT action FROM audit_log WHERE object_id = $1 ORDER BY id`, [org.uuid]);
    expect(actions.map((a) => a.action)).toEqual(['create', 'delete', 'restore', 'delete', 'restore']);
  });

  test('delete_organization held through a permission lets a member delete and restore', async () => {
    const other = await createOrg('Deletable By Permission');
    await addMember(other.slug, member, ['delete_organization']);
    expect((await t.call('DELETE', `/api/organizations/${other.slug}/`, { token: memberToken })).status).toBe(204);
    expect((await t.call('POST', `/api/organizations/${other.slug}/restore/`, { token: memberToken })).status).toBe(200);
  });
});

test('organizations inserted directly still work with the service (insertOrg)', async () => {
  await insertOrg(t.platform, 'raw-org', owner.id);
  expect((await t.call('PATCH', '/api/organizations/raw-org/', { token: ownerToken, body: { name: 'Raw' } })).body.name).toBe('Raw');
});
