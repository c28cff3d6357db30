// Permission-matrix probes of the events module (functions, their runs and invocations, event
// subscriptions; REST and GraphQL).
//
// Refusal rule (subgraphs/events/functions/function.service.ts, invocation.service.ts,
// subscription.service.ts): routes naming an app resolve it first (view_site on its site,
// so the allowed caller holds it too), then functions:read / functions:write /
// functions:execute on the site, 403. Site routes (/invocations/, /result/, /cloud/events/…)
// check the permission on the host's site. Another site's function id in a subscribe body is
// answered 400 "does not exist" (seed 3), not 404: those probes say so (`hidden: 400`).
import type { GraphqlProbe, MatrixWorld, ModuleFixture, Probe } from './types.js';

const NEEDS = { needs: ['view_site'] };
const CODE = 'async function main(params) { return { ok: true }; }';
const EVENT = 'RECORD_CREATE';

const fns = (w: MatrixWorld, app = w.app.slug) => `/api/apps/${app}/functions/`;
const rest = (w: MatrixWorld, url: string, body?: unknown, extra: Partial<Probe> = NEEDS): Probe => ({
  host: w.site.host,
  url,
  body,
  ...extra,
});
const gql = (w: MatrixWorld, query: string, variables?: Record<string, unknown>, extra: Partial<GraphqlProbe> = {}): GraphqlProbe => ({
  host: w.site.host,
  query,
  variables,
  ...NEEDS,
  ...extra,
});

async function created(w: MatrixWorld, url: string, body: unknown, status = 201): Promise<any> {
  const res = await w.asOwner('POST', url, body);
  if (res.status !== status) throw new Error(`${url}: ${res.status} ${res.text}`);
  return res.body;
}

/** A function of the world's app, created by the owner for one probe. */
async function freshFunction(w: MatrixWorld): Promise<{ id: number; slug: string }> {
  const f = await created(w, fns(w), { name: w.unique('matrix-fn-'), code: CODE });
  return { id: f.id as number, slug: f.slug as string };
}

/** A fresh function subscribed to EVENT (for the unsubscribe probes). */
async function subscribed(w: MatrixWorld): Promise<number> {
  const f = await freshFunction(w);
  await created(w, `/api/cloud/events/${EVENT}/subscribe/`, { function_id: f.id });
  return f.id;
}

const fn = (w: MatrixWorld) => w.state.eventsFunction as { id: number; slug: string };

export const eventsFixture: ModuleFixture = {
  module: 'events',
  async setup(w) {
    const f = await freshFunction(w);
    w.state.eventsFunction = f;
    // One synchronous run: its invocation id and task id are what the invocation routes read.
    const run = await created(w, `${fns(w)}${f.slug}/execute/`, { params: {} }, 200);
    w.state.eventsInvocation = { id: run.invocation_id as number, task: run.task_id as string };
  },
  routes: {
    'POST /cloud/events/:event/subscribe/': async (w) =>
      rest(w, `/api/cloud/events/${EVENT}/subscribe/`, { function_id: (await freshFunction(w)).id }, { hidden: 400 }),
    'POST /cloud/events/:event/unsubscribe/': async (w) =>
      rest(w, `/api/cloud/events/${EVENT}/unsubscribe/`, { function_id: await subscribed(w) }, { hidden: 400 }),
    'GET /apps/:app/events/:event/': async (w) => rest(w, `/api/apps/${w.app.slug}/events/${EVENT}/`),
    'GET /apps/:app/functions/': async (w) => rest(w, `${fns(w)}?page=1&page_size=5`),
    'POST /apps/:app/functions/': async (w) => rest(w, fns(w), { name: w.unique('new-fn-'), code: CODE }),
    // By the app's UUID: another site's app is as unreachable by id as by slug.
    'GET /apps/:app/functions/:slug/': async (w) => rest(w, `${fns(w, w.app.uuid)}${fn(w).slug}/`),
    'PUT /apps/:app/functions/:slug/': async (w) =>
      rest(w, `${fns(w)}${(await freshFunction(w)).slug}/`, { name: w.unique('put-fn-'), code: CODE }),
    'PATCH /apps/:app/functions/:slug/': async (w) => rest(w, `${fns(w)}${fn(w).slug}/`, { description: 'patched' }),
    'DELETE /apps/:app/functions/:slug/': async (w) => rest(w, `${fns(w)}${(await freshFunction(w)).slug}/`),
    'POST /apps/:app/functions/:slug/execute/': async (w) => rest(w, `${fns(w)}${fn(w).slug}/execute/`, { params: { n: 1 } }),
    'GET /invocations/': async (w) => rest(w, `/api/invocations/?function=${fn(w).id}`),
    'GET /invocations/:id/': async (w) => rest(w, `/api/invocations/${(w.state.eventsInvocation as { id: number }).id}/`),
    'GET /result/:task_id/': async (w) => rest(w, `/api/result/${(w.state.eventsInvocation as { task: string }).task}/`),
  },
  fields: {
    'Query.invocations': async (w) => gql(w, `{ invocations(function: ${fn(w).id}, pageSize: 5) { total items { id } } }`),
    'Query.invocation': async (w) => gql(w, `{ invocation(id: ${(w.state.eventsInvocation as { id: number }).id}) { id status } }`),
    'Mutation.createFunction': async (w) =>
      gql(w, `mutation ($i: FunctionInput!) { createFunction(app: "${w.app.slug}", input: $i) { function { slug } } }`, {
        i: { name: w.unique('gql-fn-'), code: CODE },
      }),
    'Mutation.updateFunction': async (w) =>
      gql(w, `mutation { updateFunction(app: "${w.app.slug}", slug: "${fn(w).slug}", input: {description: "g"}) { slug } }`),
    'Mutation.deleteFunction': async (w) =>
      gql(w, `mutation { deleteFunction(app: "${w.app.uuid}", slug: "${(await freshFunction(w)).slug}") { slug } }`),
    'Mutation.executeFunction': async (w) =>
      gql(w, `mutation { executeFunction(app: "${w.app.slug}", slug: "${fn(w).slug}", params: {n: 2}) { invocationId } }`),
    'Mutation.subscribeFunction': async (w) =>
      gql(w, `mutation { subscribeFunction(event: "${EVENT}", functionId: ${(await freshFunction(w)).id}) { id } }`, undefined, {
        hidden: 400,
      }),
    'Mutation.unsubscribeFunction': async (w) =>
      gql(w, `mutation { unsubscribeFunction(event: "${EVENT}", functionId: ${await subscribed(w)}) { event } }`, undefined, {
        hidden: 400,
      }),
  },
};
