// The permission matrix (issue 16 item 1), generated from the route table and the composed
// supergraph:
// (a) every REST route and every Query/Mutation field declares the permission its service
//     checks (RouteSpec.permission, the manifest's fieldPermissions; null = sign-in only);
// (b) for each declared permission P, with the module's probe (test/support/matrix/<module>.ts):
//     a member holding every permission of the catalogue except P and what implies P is
//     refused (403, or 404 where the module hides existence), and a member holding just P
//     (plus view_site where the route needs to see the site) gets a 2xx answer.
// view_organization comes with any membership, so its refused caller is no member at all but
// holds every other permission through object permissions on the organization.
// Modules without a fixture file yet show as todo (one per route and field), never silently.
import { buildSchema, type GraphQLObjectType } from 'graphql';
import { ROUTES } from '../../gateway/rest/route-table.js';
import { composeSupergraph } from '../../scripts/compose.js';
import type { RouteSpec } from '../../subgraphs/core/rest.js';
import { MODULES } from '../../subgraphs/modules.js';
import { startTestApp, type CallResult, type TestApp } from '../support/app.js';
import { FIXTURES } from '../support/matrix/index.js';
import { graphqlRequest, type GraphqlProbe, type MatrixWorld, type Probe } from '../support/matrix/types.js';
import { buildWorld } from '../support/matrix/world.js';
import { startMatrixGraph } from '../support/matrix/storage.js';

const routeKey = (r: Pick<RouteSpec, 'method' | 'path'>) => `${r.method} ${r.path}`;

const FIELD_PERMISSIONS: Record<string, string | null> = Object.assign({}, ...MODULES.map((m) => m.fieldPermissions ?? {}));

function supergraphFields(): string[] {
  const schema = buildSchema(composeSupergraph(), { assumeValidSDL: true });
  return ['Query', 'Mutation'].flatMap((type) =>
    Object.keys((schema.getType(type) as GraphQLObjectType).getFields())
      .filter((f) => !f.startsWith('_'))
      .map((f) => `${type}.${f}`),
  );
}
const FIELDS = supergraphFields();

describe('(a) every route and field declares its permission', () => {
  const codenames = new Set(MODULES.flatMap((m) => (m.permissions ?? []).map((p) => p.codename)));

  test.each(ROUTES.map((r) => [routeKey(r), r] as const))('%s', (_key, r) => {
    if (r.permission === undefined) throw new Error(`${routeKey(r)} (module ${r.module}) declares no permission`);
    if (r.permission !== null) expect(codenames).toContain(r.permission);
  });

  test.each(FIELDS)('%s', (field) => {
    if (!(field in FIELD_PERMISSIONS)) throw new Error(`${field} is not in any module's fieldPermissions`);
    const p = FIELD_PERMISSIONS[field];
    if (p !== null) expect(codenames).toContain(p);
  });
});

// ---------------------------------------------------------------------------------------
// (b) the matrix itself

let t: TestApp;
let w: MatrixWorld;

/** Callers by permission set: one user each, whose grants are (re)applied before each request. */
const callers = new Map<string, { id: number; token: string }>();

async function callerFor(kind: 'member' | 'grantee', perms: string[], orgId: number): Promise<string> {
  const key = `${kind}:${[...perms].sort().join(',')}`;
  let c = callers.get(key);
  if (!c) {
    const user = await t.createUser();
    c = { id: user.id, token: t.tokenFor(user) };
    callers.set(key, c);
  }
  const pool = t.platform.pool;
  if (kind === 'member') {
    await pool.query(
      `INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', $3)
       ON CONFLICT (organization_id, user_id) DO UPDATE SET permissions = EXCLUDED.permissions`,
      [orgId, c.id, perms],
    );
  } else {
    await pool.query(`DELETE FROM object_permissions WHERE user_id = $1 AND object_type = 'organization' AND object_id = $2`, [
      c.id,
      orgId,
    ]);
    await pool.query(
      `INSERT INTO object_permissions (user_id, permission, object_type, object_id) SELECT $1, p, 'organization', $2 FROM unnest($3::text[]) p`,
      [c.id, orgId, perms],
    );
  }
  return c.token;
}

interface Callers {
  refused: string;
  allowed: string;
}

async function callersFor(permission: string, probe: Omit<Probe, 'url' | 'host'>): Promise<Callers> {
  const orgId = probe.orgId ?? w.org.id;
  const implying = new Set([...t.platform.permissions.granting(permission), ...(probe.impliedBy ?? [])]);
  const others = [...t.platform.permissions.codenames].filter((c) => !implying.has(c));
  const refused = await callerFor(permission === 'view_organization' ? 'grantee' : 'member', others, orgId);
  const allowed = await callerFor('member', [permission, ...(probe.needs ?? [])], orgId);
  return { refused, allowed };
}

const show = (r: CallResult) => `${r.status} ${r.text.slice(0, 400)}`;

const fixtureOf = (module: string) => FIXTURES.find((f) => f.module === module);
const fieldModule = (field: string) => MODULES.find((m) => m.fieldPermissions && field in m.fieldPermissions)?.name ?? '?';

// A module with a fixture file must give a probe for each of its declared routes and fields
// (the test fails without one). A module without one yet is listed as todo, one line per
// route and field, until its test/support/matrix/<module>.ts lands.
const DECLARED_ROUTES = ROUTES.filter((r) => typeof r.permission === 'string');
const DECLARED_FIELDS = FIELDS.filter((f) => typeof FIELD_PERMISSIONS[f] === 'string');
const MATRIX_ROUTES = DECLARED_ROUTES.filter((r) => fixtureOf(r.module));
const MATRIX_FIELDS = DECLARED_FIELDS.filter((f) => fixtureOf(fieldModule(f)));
for (const r of DECLARED_ROUTES.filter((x) => !fixtureOf(x.module))) {
  test.todo(`${routeKey(r)} needs ${r.permission}: add test/support/matrix/${r.module}.ts`);
}
for (const f of DECLARED_FIELDS.filter((x) => !fixtureOf(fieldModule(x)))) {
  test.todo(`${f} needs ${FIELD_PERMISSIONS[f]}: add test/support/matrix/${fieldModule(f)}.ts`);
}

let graph: Awaited<ReturnType<typeof startMatrixGraph>> | undefined;

beforeAll(async () => {
  // Storage's document-library routes need Graph: the local fake stands in for it.
  graph = await startMatrixGraph();
  t = await startTestApp(graph.env);
  w = await buildWorld(t, 'm');
}, 120_000);
afterAll(async () => {
  await t?.close();
  await graph?.close();
});

describe('(b) REST: refused without the permission, past the check with it', () => {
  test.each(MATRIX_ROUTES.map((r) => [`${routeKey(r)} needs ${r.permission}`, r] as const))('%s', async (_name, r) => {
    const build = fixtureOf(r.module)!.routes[routeKey(r)];
    if (!build) throw new Error(`${routeKey(r)}: add a probe to test/support/matrix/${r.module}.ts`);
    const probe = await build(w);
    const { refused, allowed } = await callersFor(r.permission!, probe);
    const call = (token: string) => t.call(r.method, probe.url, { host: probe.host, token, body: probe.body, headers: probe.headers });

    const no = await call(refused);
    if (probe.deniedBy) {
      if (!probe.deniedBy(no)) throw new Error(`without ${r.permission}: expected the answer to show the refusal, got ${show(no)}`);
    } else {
      const expected = probe.denied ?? 403;
      if (no.status !== expected) throw new Error(`without ${r.permission}: expected ${expected}, got ${show(no)}`);
    }

    const yes = await call(allowed);
    if (yes.status < 200 || yes.status >= 300) throw new Error(`with ${r.permission}: got ${show(yes)}`);
    if (probe.deniedBy?.(yes)) throw new Error(`with ${r.permission}: the answer shows a refusal: ${show(yes)}`);
  });
});

describe('(b) GraphQL: refused without the permission, past the check with it', () => {
  const gql = (probe: GraphqlProbe, token: string) => t.call('POST', '/graphql', { host: probe.host, token, ...graphqlRequest(probe) });

  test.each(MATRIX_FIELDS.map((f) => [`${f} needs ${FIELD_PERMISSIONS[f]}`, f] as const))('%s', async (_name, field) => {
    const permission = FIELD_PERMISSIONS[field]!;
    const build = fixtureOf(fieldModule(field))?.fields[field];
    if (!build) throw new Error(`${field}: add a probe to test/support/matrix/${fieldModule(field)}.ts`);
    const probe = await build(w);
    const { refused, allowed } = await callersFor(permission, probe);

    const no = await gql(probe, refused);
    const expected = probe.denied ?? 403;
    const status = no.body?.errors?.[0]?.extensions?.status;
    if (status !== expected) throw new Error(`without ${permission}: expected an error with status ${expected}, got ${show(no)}`);

    const yes = await gql(probe, allowed);
    if (yes.status !== 200 || yes.body?.errors) throw new Error(`with ${permission}: got ${show(yes)}`);
  });
});
