// Isolation probes that must reach the check (issue 16 item 3), built from the permission
// matrix's fixtures: each probe is a complete, valid request (body and query string) naming a
// victim tenant's objects. The attacker — the owner of another tenant, who holds every
// permission there — sends it from their own tenant's host (or the console) and must get 404,
// as for something that does not exist (or the 400 "does not exist" a probe names as `hidden`,
// for an id in a request body where the seed answers so); then the victim's owner sends the same request on their
// own host and must succeed. A probe whose control fails is broken, not passing: each route and
// field is asserted on its own, write routes included (the control runs after the attack, so a
// write the attack wrongly made would also show).
import { buildSchema, type GraphQLObjectType } from 'graphql';
import { ROUTES } from '../../../gateway/rest/route-table.js';
import { composeSupergraph } from '../../../scripts/compose.js';
import type { RouteSpec } from '../../../subgraphs/core/rest.js';
import { MODULES } from '../../../subgraphs/modules.js';
import type { CallResult, TestApp } from '../app.js';
import { FIXTURES } from './index.js';
import { graphqlRequest, type GraphqlProbe, type MatrixWorld } from './types.js';

export interface IsolationWorlds {
  t: TestApp;
  attacker: MatrixWorld;
  victim: MatrixWorld;
}

const show = (r: CallResult) => `${r.status} ${r.text.slice(0, 400)}`;
const routeKey = (r: Pick<RouteSpec, 'method' | 'path'>) => `${r.method} ${r.path}`;

/** The attacker's host for a probe made for the victim: their own site's host, or the same platform host. */
const attackHost = (probeHost: string, w: IsolationWorlds) => (probeHost === w.victim.site.host ? w.attacker.site.host : probeHost);

/** Routes of `module` that name an object in their path and have a matrix probe. */
export function isolationRoutes(module: string): RouteSpec[] {
  const fixture = FIXTURES.find((f) => f.module === module);
  return ROUTES.filter((r) => r.module === module && r.path.includes(':') && fixture?.routes[routeKey(r)]);
}

/** One jest test per route: the attack answers 404, the owner's identical request succeeds. */
export function restIsolationTests(module: string, worlds: () => IsolationWorlds): void {
  const routes = isolationRoutes(module);
  test('every object route of the module has an isolation probe', () => {
    const missing = ROUTES.filter((r) => r.module === module && r.path.includes(':') && typeof r.permission === 'string')
      .filter((r) => !routes.includes(r))
      .map(routeKey);
    expect(missing).toEqual([]);
  });
  test.each(routes.map((r) => [routeKey(r), r] as const))('%s', async (key, r) => {
    const w = worlds();
    const probe = await FIXTURES.find((f) => f.module === module)!.routes[key](w.victim);
    const call = (token: string, host: string) => w.t.call(r.method, probe.url, { token, host, body: probe.body, headers: probe.headers });
    const attack = await call(w.attacker.ownerToken, attackHost(probe.host, w));
    const hidden = probe.hidden ?? 404;
    if (attack.status !== hidden) throw new Error(`attack from another tenant: expected ${hidden}, got ${show(attack)}`);
    const control = await call(w.victim.ownerToken, probe.host);
    if (control.status < 200 || control.status >= 300) throw new Error(`control by the owner: got ${show(control)}`);
    if (probe.deniedBy?.(control)) throw new Error(`control by the owner: the answer shows a refusal: ${show(control)}`);
  });
}

/** Query and Mutation fields that take an identifier (an argument naming an object). */
const ID_ARGS = new Set(['slug', 'id', 'app', 'organization', 'site', 'user', 'table', 'name', 'domain', 'functionId']);
function fieldsWithIdentifiers(): Set<string> {
  const schema = buildSchema(composeSupergraph(), { assumeValidSDL: true });
  const out = new Set<string>();
  for (const type of ['Query', 'Mutation']) {
    for (const f of Object.values((schema.getType(type) as GraphQLObjectType).getFields())) {
      if (f.args.some((a) => ID_ARGS.has(a.name))) out.add(`${type}.${f.name}`);
    }
  }
  return out;
}

/** Fields of `module` that take an identifier and declare a permission (a matrix probe exists for each). */
export function isolationFields(module: string): string[] {
  const declared = MODULES.find((m) => m.name === module)?.fieldPermissions ?? {};
  const withIds = fieldsWithIdentifiers();
  return Object.keys(declared).filter((f) => withIds.has(f) && typeof declared[f] === 'string');
}

export function graphqlIsolationTests(module: string, worlds: () => IsolationWorlds): void {
  const fields = isolationFields(module);
  const fixture = FIXTURES.find((f) => f.module === module);
  test('every such field has a probe', () => {
    expect(fields.filter((f) => !fixture?.fields[f])).toEqual([]);
  });
  const gql = (w: IsolationWorlds, probe: GraphqlProbe, token: string, host: string) =>
    w.t.call('POST', '/graphql', { host, token, ...graphqlRequest(probe) });
  test.each(fields)('%s', async (field) => {
    const w = worlds();
    const probe = await fixture!.fields[field](w.victim);
    const name = field.split('.')[1];
    const attack = await gql(w, probe, w.attacker.ownerToken, attackHost(probe.host ?? 'localhost', w));
    const error = attack.body?.errors?.[0];
    const hidden = error ? error.extensions?.status === (probe.hidden ?? 404) : attack.body?.data?.[name] === null;
    if (!hidden) throw new Error(`attack from another tenant: expected not found, got ${show(attack)}`);
    const control = await gql(w, probe, w.victim.ownerToken, probe.host ?? 'localhost');
    if (control.body?.errors || control.body?.data?.[name] == null) throw new Error(`control by the owner: got ${show(control)}`);
  });
}
