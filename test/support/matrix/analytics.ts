// Permission-matrix probes of the analytics module (saved queries, their execution and its
// log, REST and GraphQL).
//
// Refusal rule (subgraphs/analytics/query/query.service.ts loadAppFor): the app of the path is
// resolved first (view_site on its site), then analytics:read / analytics:write /
// analytics:execute on the site, 403; so the allowed caller also holds view_site. Another
// site's app or query answers 404 (the isolation probes of test/e2e/analytics-isolation.test.ts).
import type { GraphqlProbe, MatrixWorld, ModuleFixture, Probe } from './types.js';

const NEEDS = { needs: ['view_site'] };

const base = (w: MatrixWorld) => `/api/apps/${w.app.slug}/analytics/queries/`;
const rest = (w: MatrixWorld, url: string, body?: unknown): Probe => ({ host: w.site.host, url, body, ...NEEDS });
const gql = (w: MatrixWorld, query: string, variables?: Record<string, unknown>): GraphqlProbe => ({
  host: w.site.host,
  query,
  variables,
  ...NEEDS,
});

/** A valid internal query body (runs on the site's own schema, no table needed). */
const queryBody = (w: MatrixWorld) => ({
  name: w.unique('Matrix query '),
  connection_type: 'internal',
  query_text: 'SELECT {{ n }}::int AS n',
});

/** A saved query of the world's app, created by the owner for one probe; its slug. */
async function freshQuery(w: MatrixWorld): Promise<string> {
  const res = await w.asOwner('POST', base(w), queryBody(w));
  if (res.status !== 201) throw new Error(`analytics query: ${res.status} ${res.text}`);
  return res.body.data.slug as string;
}

const PARAMS = { n: 7 };

export const analyticsFixture: ModuleFixture = {
  module: 'analytics',
  async setup(w) {
    const slug = await freshQuery(w);
    w.state.analyticsQuery = slug;
    // One execution, so the executions list of the probes has a row to (not) show.
    const run = await w.asOwner('POST', `${base(w)}${slug}/execute/`, { params: PARAMS });
    if (run.status !== 200) throw new Error(`analytics execute: ${run.status} ${run.text}`);
  },
  routes: {
    'GET /apps/:app/analytics/queries/': async (w) => rest(w, `${base(w)}?page=1&page_size=5`),
    'POST /apps/:app/analytics/queries/': async (w) => rest(w, base(w), queryBody(w)),
    'GET /apps/:app/analytics/queries/:slug/': async (w) => rest(w, `${base(w)}${w.state.analyticsQuery}/`),
    'PUT /apps/:app/analytics/queries/:slug/': async (w) => rest(w, `${base(w)}${w.state.analyticsQuery}/`, { description: 'changed' }),
    'DELETE /apps/:app/analytics/queries/:slug/': async (w) => rest(w, `${base(w)}${await freshQuery(w)}/`),
    'POST /apps/:app/analytics/queries/:slug/execute/': async (w) =>
      rest(w, `${base(w)}${w.state.analyticsQuery}/execute/`, { params: PARAMS }),
    'GET /apps/:app/analytics/queries/:slug/executions/': async (w) =>
      rest(w, `${base(w)}${w.state.analyticsQuery}/executions/?page=1&page_size=5`),
  },
  fields: {
    'Query.analyticsQuery': async (w) =>
      gql(w, `{ analyticsQuery(app: "${w.app.slug}", slug: "${w.state.analyticsQuery}") { slug queryText } }`),
    'Query.analyticsExecutions': async (w) =>
      gql(
        w,
        `{ analyticsExecutions(app: "${w.app.slug}", slug: "${w.state.analyticsQuery}", pageSize: 5) { total items { executionKey } } }`,
      ),
    'Mutation.createAnalyticsQuery': async (w) =>
      gql(w, `mutation ($i: AnalyticsQueryInput!) { createAnalyticsQuery(app: "${w.app.slug}", input: $i) { slug } }`, {
        i: { name: w.unique('Matrix query '), connectionType: 'internal', queryText: 'SELECT 1 AS one' },
      }),
    'Mutation.updateAnalyticsQuery': async (w) =>
      gql(
        w,
        `mutation { updateAnalyticsQuery(app: "${w.app.slug}", slug: "${w.state.analyticsQuery}", input: {description: "g"}) { slug } }`,
      ),
    'Mutation.deleteAnalyticsQuery': async (w) =>
      gql(w, `mutation { deleteAnalyticsQuery(app: "${w.app.slug}", slug: "${await freshQuery(w)}") { slug } }`),
    'Mutation.executeAnalyticsQuery': async (w) =>
      gql(
        w,
        `mutation ($p: JSON) { executeAnalyticsQuery(app: "${w.app.slug}", slug: "${w.state.analyticsQuery}", params: $p) { total rows executionKey } }`,
        {
          p: PARAMS,
        },
      ),
  },
};
