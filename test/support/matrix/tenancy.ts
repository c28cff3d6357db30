// Permission-matrix probes of the tenancy module (organizations, members, invitations, sites,
// domains, apps, API keys, groups).
//
// Refusal rule, from the services and DECISIONS §2: an organization or site the caller may
// not view does not exist for them (404: view_organization, and view_site on console routes
// that name the site); a visible object without the right to act on it answers 403, and so
// does the site of a tenant host without view_site. Restoring a deleted organization is 404
// without delete_organization (a deleted one is visible only to those who may restore it).
// Site administration (change_site, delete_site, manage_site) also accepts manage_organization
// on the site's organization (site.service.ts mayAdminister): the refused caller lacks it too.
import { insertApp, insertOrg, insertSite } from '../tenants.js';
import type { GraphqlProbe, MatrixWorld, ModuleFixture, Probe } from './types.js';

const CONSOLE = 'localhost';
export const SITE_ADMIN = { needs: ['view_site'], impliedBy: ['manage_organization'] };

const q = async (w: MatrixWorld, sql: string, params: unknown[] = []) => (await w.t.platform.pool.query(sql, params)).rows;

/** A fresh organization owned by the world's owner (for probes that delete or restore one). */
async function freshOrg(w: MatrixWorld, deleted = false) {
  const slug = w.unique('org');
  const org = await insertOrg(w.t.platform, slug, w.owner.id);
  if (deleted) await q(w, 'UPDATE organizations SET is_deleted = true, is_active = false, deleted_at = now() WHERE id = $1', [org.id]);
  return { ...org, slug };
}

/** A fresh user who is a plain member of the world's organization (a target of member probes). */
async function freshMember(w: MatrixWorld) {
  const u = await w.t.createUser();
  await q(w, `INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'member')`, [w.org.id, u.id]);
  return u;
}

async function freshSite(w: MatrixWorld) {
  const slug = w.unique('site');
  const site = await insertSite(w.t.platform, w.org.id, slug, `${slug}.matrix.test`);
  return { ...site, slug };
}

async function freshDomain(w: MatrixWorld) {
  const host = `${w.unique('dom')}.matrix.test`;
  const slug = host.replace(/\./g, '-');
  await q(w, 'INSERT INTO domains (slug, domain, site_id, is_primary) VALUES ($1, $2, $3, false)', [slug, host, w.site.id]);
  return slug;
}

async function freshApp(w: MatrixWorld, deleted = false) {
  const slug = w.unique('app');
  const app = await insertApp(w.t.platform, w.site.id, slug);
  if (deleted) await q(w, 'UPDATE apps SET is_deleted = true, is_active = false, deleted_at = now() WHERE id = $1', [app.id]);
  return slug;
}

async function freshInvitation(w: MatrixWorld): Promise<string> {
  const res = await w.asOwner(
    'POST',
    `/api/organizations/${w.org.slug}/invitations/`,
    { invitee_identifier: `${w.unique('inv')}@example.test` },
    CONSOLE,
  );
  if (res.status !== 201) throw new Error(`invitation: ${res.status} ${res.text}`);
  return res.body.uuid;
}

async function freshGroup(w: MatrixWorld, withOwner = false): Promise<string> {
  const res = await w.asOwner('POST', '/api/groups/', { name: w.unique('group'), organization: w.org.slug }, CONSOLE);
  if (res.status !== 201 && res.status !== 200) throw new Error(`group: ${res.status} ${res.text}`);
  const id = String(res.body.id);
  if (withOwner) {
    const add = await w.asOwner('POST', `/api/groups/${id}/users/`, { user: w.owner.uuid }, CONSOLE);
    if (add.status >= 300) throw new Error(`group member: ${add.status} ${add.text}`);
  }
  return id;
}

async function freshApiKey(w: MatrixWorld): Promise<string> {
  const res = await w.asOwner('POST', `/api/apps/${w.app.slug}/api-keys/`, { name: 'matrix' });
  if (res.status >= 300) throw new Error(`api key: ${res.status} ${res.text}`);
  return res.body.uuid ?? String(res.body.id);
}

const primaryDomain = async (w: MatrixWorld) =>
  (await q(w, 'SELECT slug FROM domains WHERE site_id = $1 AND is_primary', [w.site.id]))[0].slug as string;

const onConsole = (url: string, extra: Partial<Probe> = {}): Probe => ({ host: CONSOLE, url, ...extra });
const onSite = (w: MatrixWorld, url: string, extra: Partial<Probe> = {}): Probe => ({ host: w.site.host, url, ...extra });
const gqlConsole = (query: string, extra: Partial<GraphqlProbe> = {}): GraphqlProbe => ({ host: CONSOLE, query, ...extra });
const gqlSite = (w: MatrixWorld, query: string, extra: Partial<GraphqlProbe> = {}): GraphqlProbe => ({
  host: w.site.host,
  query,
  ...extra,
});

export const tenancyFixture: ModuleFixture = {
  module: 'tenancy',
  async setup(w) {
    w.state.group = await freshGroup(w);
  },
  routes: {
    // Organizations
    'GET /organizations/:org/': async (w) => onConsole(`/api/organizations/${w.org.slug}/`, { denied: 404 }),
    'PUT /organizations/:org/': async (w) => onConsole(`/api/organizations/${w.org.slug}/`, { body: { name: 'Matrix organization' } }),
    'PATCH /organizations/:org/': async (w) => onConsole(`/api/organizations/${w.org.slug}/`, { body: { name: 'Matrix organization' } }),
    'DELETE /organizations/:org/': async (w) => {
      const org = await freshOrg(w);
      return onConsole(`/api/organizations/${org.slug}/`, { orgId: org.id });
    },
    'POST /organizations/:org/restore/': async (w) => {
      const org = await freshOrg(w, true);
      return onConsole(`/api/organizations/${org.slug}/restore/`, { orgId: org.id, denied: 404 });
    },
    'GET /organizations/:org/members/': async (w) => onConsole(`/api/organizations/${w.org.slug}/members/`, { denied: 404 }),
    'GET /organizations/:org/members/:user/': async (w) =>
      onConsole(`/api/organizations/${w.org.slug}/members/${w.owner.uuid}/`, { denied: 404 }),
    'PATCH /organizations/:org/members/:user/': async (w) =>
      onConsole(`/api/organizations/${w.org.slug}/members/${(await freshMember(w)).uuid}/`, { body: { permissions: ['view_site'] } }),
    'DELETE /organizations/:org/members/:user/': async (w) =>
      onConsole(`/api/organizations/${w.org.slug}/members/${(await freshMember(w)).uuid}/`),
    'GET /organizations/:org/invitations/': async (w) => onConsole(`/api/organizations/${w.org.slug}/invitations/`),
    'POST /organizations/:org/invitations/': async (w) =>
      onConsole(`/api/organizations/${w.org.slug}/invitations/`, { body: { invitee_identifier: `${w.unique('inv')}@example.test` } }),
    'POST /organizations/:org/invitations/:uuid/resend/': async (w) =>
      onConsole(`/api/organizations/${w.org.slug}/invitations/${await freshInvitation(w)}/resend/`),
    'DELETE /organizations/:org/invitations/:uuid/': async (w) =>
      onConsole(`/api/organizations/${w.org.slug}/invitations/${await freshInvitation(w)}/`),
    'GET /organizations/:org/audit/': async (w) => onConsole(`/api/organizations/${w.org.slug}/audit/`),

    // Sites and domains
    'GET /organizations/:org/sites/': async (w) => onConsole(`/api/organizations/${w.org.slug}/sites/`, { denied: 404 }),
    'POST /organizations/:org/sites/': async (w) =>
      onConsole(`/api/organizations/${w.org.slug}/sites/`, { body: { name: w.unique('Site') }, impliedBy: ['manage_organization'] }),
    'GET /sites/config/': async (w) => onSite(w, '/api/sites/config/'),
    'GET /sites/:site/': async (w) => onConsole(`/api/sites/${w.site.slug}/`, { denied: 404 }),
    'PUT /sites/:site/': async (w) => onConsole(`/api/sites/${w.site.slug}/`, { body: { name: 'Matrix site' }, ...SITE_ADMIN }),
    'PATCH /sites/:site/': async (w) => onConsole(`/api/sites/${w.site.slug}/`, { body: { name: 'Matrix site' }, ...SITE_ADMIN }),
    'DELETE /sites/:site/': async (w) => onConsole(`/api/sites/${(await freshSite(w)).slug}/`, SITE_ADMIN),
    'POST /sites/:site/restore/': async (w) => onConsole(`/api/sites/${(await freshSite(w)).slug}/restore/`, SITE_ADMIN),
    'GET /sites/:site/domains/': async (w) => onConsole(`/api/sites/${w.site.slug}/domains/`, { denied: 404 }),
    'POST /sites/:site/domains/': async (w) =>
      onConsole(`/api/sites/${w.site.slug}/domains/`, { body: { domain: `${w.unique('new')}.matrix.test` }, ...SITE_ADMIN }),
    'GET /sites/:site/domains/:domain/': async (w) =>
      onConsole(`/api/sites/${w.site.slug}/domains/${await primaryDomain(w)}/`, { denied: 404 }),
    'PATCH /sites/:site/domains/:domain/': async (w) =>
      onConsole(`/api/sites/${w.site.slug}/domains/${await freshDomain(w)}/`, {
        body: { domain: `${w.unique('moved')}.matrix.test` },
        ...SITE_ADMIN,
      }),
    'DELETE /sites/:site/domains/:domain/': async (w) =>
      onConsole(`/api/sites/${w.site.slug}/domains/${await freshDomain(w)}/`, SITE_ADMIN),

    // Apps (tenant host; their API keys are the auth module's routes: authFixture below)
    'GET /apps/': async (w) => onSite(w, '/api/apps/'),
    'POST /apps/': async (w) => onSite(w, '/api/apps/', { body: { name: w.unique('App') }, ...SITE_ADMIN }),
    'GET /apps/:app/': async (w) => onSite(w, `/api/apps/${w.app.slug}/`),
    'PUT /apps/:app/': async (w) => onSite(w, `/api/apps/${w.app.slug}/`, { body: { name: 'Matrix app' }, ...SITE_ADMIN }),
    'PATCH /apps/:app/': async (w) => onSite(w, `/api/apps/${w.app.slug}/`, { body: { name: 'Matrix app' }, ...SITE_ADMIN }),
    'DELETE /apps/:app/': async (w) => onSite(w, `/api/apps/${await freshApp(w)}/`, SITE_ADMIN),
    'POST /apps/:app/restore/': async (w) => onSite(w, `/api/apps/${await freshApp(w, true)}/restore/`, SITE_ADMIN),

    // Groups of the organization
    'POST /groups/': async (w) => onConsole('/api/groups/', { body: { name: w.unique('group'), organization: w.org.slug } }),
    'GET /groups/:group/': async (w) => onConsole(`/api/groups/${w.state.group}/`, { denied: 404 }),
    'PUT /groups/:group/': async (w) => onConsole(`/api/groups/${w.state.group}/`, { body: { name: w.unique('group') } }),
    'PATCH /groups/:group/': async (w) => onConsole(`/api/groups/${w.state.group}/`, { body: { name: w.unique('group') } }),
    'DELETE /groups/:group/': async (w) => onConsole(`/api/groups/${await freshGroup(w)}/`),
    'POST /groups/:group/users/': async (w) => onConsole(`/api/groups/${await freshGroup(w)}/users/`, { body: { user: w.owner.uuid } }),
    'DELETE /groups/:group/users/:user/': async (w) => onConsole(`/api/groups/${await freshGroup(w, true)}/users/${w.owner.uuid}/`),
  },
  fields: {
    'Query.organization': async (w) => gqlConsole(`{ organization(slug: "${w.org.slug}") { id } }`, { denied: 404 }),
    'Query.member': async (w) => gqlConsole(`{ member(organization: "${w.org.slug}", user: "${w.owner.uuid}") { id } }`, { denied: 404 }),
    'Query.site': async (w) => gqlConsole(`{ site(slug: "${w.site.slug}") { id } }`, { denied: 404 }),
    'Query.app': async (w) => gqlSite(w, `{ app(slug: "${w.app.slug}") { id } }`),
    'Query.apps': async (w) => gqlSite(w, '{ apps { total } }'),
    'Query.apiKeys': async (w) => gqlSite(w, `{ apiKeys(app: "${w.app.slug}") { total } }`, SITE_ADMIN),
    'Query.siteConfig': async (w) => gqlSite(w, '{ siteConfig { site { uuid } } }'),
    'Query.group': async (w) => gqlConsole(`{ group(id: "${w.state.group}") { id } }`, { denied: 404 }),
    'Mutation.updateOrganization': async (w) =>
      gqlConsole(`mutation { updateOrganization(slug: "${w.org.slug}", input: {name: "Matrix organization"}) { id } }`),
    'Mutation.deleteOrganization': async (w) => {
      const org = await freshOrg(w);
      return gqlConsole(`mutation { deleteOrganization(slug: "${org.slug}") { id } }`, { orgId: org.id });
    },
    'Mutation.restoreOrganization': async (w) => {
      const org = await freshOrg(w, true);
      return gqlConsole(`mutation { restoreOrganization(slug: "${org.slug}") { id } }`, { orgId: org.id, denied: 404 });
    },
    'Mutation.updateMember': async (w) =>
      gqlConsole(
        `mutation { updateMember(organization: "${w.org.slug}", user: "${(await freshMember(w)).uuid}", input: {permissions: ["view_site"]}) { id } }`,
      ),
    'Mutation.removeMember': async (w) =>
      gqlConsole(`mutation { removeMember(organization: "${w.org.slug}", user: "${(await freshMember(w)).uuid}") { id } }`),
    'Mutation.createInvitation': async (w) =>
      gqlConsole(
        `mutation { createInvitation(organization: "${w.org.slug}", input: {inviteeIdentifier: "${w.unique('inv')}@example.test"}) { token } }`,
      ),
    'Mutation.resendInvitation': async (w) =>
      gqlConsole(`mutation { resendInvitation(organization: "${w.org.slug}", id: "${await freshInvitation(w)}") { token } }`),
    'Mutation.revokeInvitation': async (w) =>
      gqlConsole(`mutation { revokeInvitation(organization: "${w.org.slug}", id: "${await freshInvitation(w)}") { id } }`),
    'Mutation.createSite': async (w) =>
      gqlConsole(`mutation { createSite(organization: "${w.org.slug}", input: {name: "${w.unique('Site')}"}) { id } }`, {
        impliedBy: ['manage_organization'],
      }),
    'Mutation.updateSite': async (w) =>
      gqlConsole(`mutation { updateSite(slug: "${w.site.slug}", input: {name: "Matrix site"}) { id } }`, SITE_ADMIN),
    'Mutation.deleteSite': async (w) => gqlConsole(`mutation { deleteSite(slug: "${(await freshSite(w)).slug}") { id } }`, SITE_ADMIN),
    'Mutation.restoreSite': async (w) => gqlConsole(`mutation { restoreSite(slug: "${(await freshSite(w)).slug}") { id } }`, SITE_ADMIN),
    'Mutation.createDomain': async (w) =>
      gqlConsole(`mutation { createDomain(site: "${w.site.slug}", input: {domain: "${w.unique('new')}.matrix.test"}) { id } }`, SITE_ADMIN),
    'Mutation.updateDomain': async (w) =>
      gqlConsole(
        `mutation { updateDomain(site: "${w.site.slug}", domain: "${await freshDomain(w)}", input: {domain: "${w.unique('moved')}.matrix.test"}) { id } }`,
        SITE_ADMIN,
      ),
    'Mutation.deleteDomain': async (w) =>
      gqlConsole(`mutation { deleteDomain(site: "${w.site.slug}", domain: "${await freshDomain(w)}") { id } }`, SITE_ADMIN),
    'Mutation.createApp': async (w) => gqlSite(w, `mutation { createApp(input: {name: "${w.unique('App')}"}) { id } }`, SITE_ADMIN),
    'Mutation.updateApp': async (w) =>
      gqlSite(w, `mutation { updateApp(slug: "${w.app.slug}", input: {name: "Matrix app"}) { id } }`, SITE_ADMIN),
    'Mutation.deleteApp': async (w) => gqlSite(w, `mutation { deleteApp(slug: "${await freshApp(w)}") { id } }`, SITE_ADMIN),
    'Mutation.createApiKey': async (w) => gqlSite(w, `mutation { createApiKey(app: "${w.app.slug}", name: "matrix") { key } }`, SITE_ADMIN),
    'Mutation.revokeApiKey': async (w) =>
      gqlSite(w, `mutation { revokeApiKey(app: "${w.app.slug}", id: "${await freshApiKey(w)}") { id } }`, SITE_ADMIN),
    'Mutation.createGroup': async (w) =>
      gqlConsole(`mutation { createGroup(input: {name: "${w.unique('group')}", organization: "${w.org.slug}"}) { id } }`),
    'Mutation.updateGroup': async (w) =>
      gqlConsole(`mutation { updateGroup(id: "${w.state.group}", input: {name: "${w.unique('group')}"}) { id } }`),
    'Mutation.deleteGroup': async (w) => gqlConsole(`mutation { deleteGroup(id: "${await freshGroup(w)}") { id } }`),
    'Mutation.addGroupMember': async (w) =>
      gqlConsole(`mutation { addGroupMember(id: "${await freshGroup(w)}", user: "${w.owner.uuid}") { id } }`),
    'Mutation.removeGroupMember': async (w) =>
      gqlConsole(`mutation { removeGroupMember(id: "${await freshGroup(w, true)}", user: "${w.owner.uuid}") { id } }`),
  },
};

/** The API-key routes (module `auth`, service in tenancy): site administration on the app's site. */
export const authFixture: ModuleFixture = {
  module: 'auth',
  routes: {
    'GET /apps/:app/api-keys/': async (w) => onSite(w, `/api/apps/${w.app.slug}/api-keys/`, SITE_ADMIN),
    'POST /apps/:app/api-keys/': async (w) => onSite(w, `/api/apps/${w.app.slug}/api-keys/`, { body: { name: 'matrix' }, ...SITE_ADMIN }),
    'DELETE /apps/:app/api-keys/:id/': async (w) => onSite(w, `/api/apps/${w.app.slug}/api-keys/${await freshApiKey(w)}/`, SITE_ADMIN),
  },
  fields: {},
};
