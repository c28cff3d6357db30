// Permission-matrix probes of the data module (datatables and records, REST and GraphQL).
//
// Refusal rule (subgraphs/data/table/table-access.ts): on the site's host, view_site first,
// then data:read or data:write on the site, both 403; so the allowed caller also holds view_site.
import type { GraphqlProbe, MatrixWorld, ModuleFixture, Probe } from './types.js';

const NEEDS = { needs: ['view_site'] };
const TABLE = 'items';

const base = (w: MatrixWorld) => `/api/apps/${w.app.slug}/datatables/`;
const data = (w: MatrixWorld) => `${base(w)}${TABLE}/data/`;
const rest = (w: MatrixWorld, url: string, body?: unknown): Probe => ({ host: w.site.host, url, body, ...NEEDS });
const gql = (w: MatrixWorld, query: string): GraphqlProbe => ({ host: w.site.host, query, ...NEEDS });

async function createTable(w: MatrixWorld, name: string): Promise<void> {
  const res = await w.asOwner('POST', `${base(w)}create_schema/`, {
    resources: [
      {
        name,
        schema: {
          fields: [
            { name: 'title', type: 'string' },
            { name: 'code', type: 'string', constraints: { unique: true } },
          ],
        },
      },
    ],
  });
  if (res.status !== 201) throw new Error(`create_schema: ${res.status} ${res.text}`);
}

/** A record of the world's table, created by the owner for one probe. */
async function freshRecord(w: MatrixWorld): Promise<string> {
  const res = await w.asOwner('POST', data(w), { title: 'matrix', code: w.unique('code') });
  if (res.status !== 201) throw new Error(`record: ${res.status} ${res.text}`);
  return String(res.body.data.id);
}

async function freshTable(w: MatrixWorld): Promise<string> {
  const name = w.unique('table_').replace(/-/g, '_');
  await createTable(w, name);
  return name;
}

const newPackage = (w: MatrixWorld) => ({ resources: [{ name: w.unique('pkg_'), schema: { fields: [{ name: 'x', type: 'string' }] } }] });

export const dataFixture: ModuleFixture = {
  module: 'data',
  async setup(w) {
    await createTable(w, TABLE);
    w.state.record = await freshRecord(w);
  },
  routes: {
    'GET /apps/:app/datatables/': async (w) => rest(w, base(w)),
    'POST /apps/:app/datatables/create_schema/': async (w) => rest(w, `${base(w)}create_schema/`, newPackage(w)),
    'GET /apps/:app/datatables/:name/': async (w) => rest(w, `${base(w)}${TABLE}/`),
    'DELETE /apps/:app/datatables/:name/': async (w) => rest(w, `${base(w)}${await freshTable(w)}/`),
    'GET /apps/:app/datatables/:name/data/': async (w) => rest(w, `${data(w)}?title=matrix`),
    'GET /apps/:app/datatables/:name/data/:id/': async (w) => rest(w, `${data(w)}${w.state.record}/`),
    'POST /apps/:app/datatables/:name/data/': async (w) => rest(w, data(w), { title: 'new', code: w.unique('code') }),
    'POST /apps/:app/datatables/:name/data/upsert/': async (w) =>
      rest(w, `${data(w)}upsert/?unique_fields=code`, { title: 'upserted', code: w.unique('code') }),
    'PATCH /apps/:app/datatables/:name/data/:id/': async (w) => rest(w, `${data(w)}${await freshRecord(w)}/`, { title: 'patched' }),
    'PATCH /apps/:app/datatables/:name/data/': async (w) => rest(w, data(w), [{ id: await freshRecord(w), title: 'patched' }]),
    'DELETE /apps/:app/datatables/:name/data/:id/': async (w) => rest(w, `${data(w)}${await freshRecord(w)}/`),
    'DELETE /apps/:app/datatables/:name/data/': async (w) => rest(w, `${data(w)}?ids=${await freshRecord(w)}`),
  },
  fields: {
    'Query.records': async (w) => gql(w, `{ records(app: "${w.app.slug}", table: "${TABLE}") { __typename } }`),
    'Query.aggregate': async (w) => gql(w, `{ aggregate(app: "${w.app.slug}", table: "${TABLE}", aggregate: ["count(*)"]) }`),
    'Query.record': async (w) => gql(w, `{ record(app: "${w.app.slug}", table: "${TABLE}", id: "${w.state.record}") { __typename } }`),
    'Query.datatable': async (w) => gql(w, `{ datatable(app: "${w.app.slug}", name: "${TABLE}") { __typename } }`),
    'Mutation.createRecord': async (w) =>
      gql(
        w,
        `mutation { createRecord(app: "${w.app.slug}", table: "${TABLE}", data: {title: "g", code: "${w.unique('code')}"}) { __typename } }`,
      ),
    'Mutation.createRecords': async (w) =>
      gql(
        w,
        `mutation { createRecords(app: "${w.app.slug}", table: "${TABLE}", data: [{title: "g", code: "${w.unique('code')}"}]) { __typename } }`,
      ),
    'Mutation.upsertRecord': async (w) =>
      gql(
        w,
        `mutation { upsertRecord(app: "${w.app.slug}", table: "${TABLE}", data: {title: "g", code: "${w.unique('code')}"}, uniqueFields: ["code"]) { __typename } }`,
      ),
    'Mutation.updateRecord': async (w) =>
      gql(
        w,
        `mutation { updateRecord(app: "${w.app.slug}", table: "${TABLE}", id: "${await freshRecord(w)}", data: {title: "g2"}) { __typename } }`,
      ),
    'Mutation.updateRecords': async (w) =>
      gql(
        w,
        `mutation { updateRecords(app: "${w.app.slug}", table: "${TABLE}", data: [{id: "${await freshRecord(w)}", title: "g2"}]) { __typename } }`,
      ),
    'Mutation.updateRecordsWhere': async (w) => {
      const code = w.unique('code');
      await w.asOwner('POST', data(w), { title: 'where', code });
      return gql(
        w,
        `mutation { updateRecordsWhere(app: "${w.app.slug}", table: "${TABLE}", filter: {code: "${code}"}, data: {title: "g3"}) { __typename } }`,
      );
    },
    'Mutation.deleteRecord': async (w) =>
      gql(w, `mutation { deleteRecord(app: "${w.app.slug}", table: "${TABLE}", id: "${await freshRecord(w)}") { id } }`),
    'Mutation.deleteRecords': async (w) =>
      gql(w, `mutation { deleteRecords(app: "${w.app.slug}", table: "${TABLE}", ids: ["${await freshRecord(w)}"]) { __typename } }`),
    'Mutation.createSchema': async (w) => ({
      ...gql(w, `mutation ($p: JSON!) { createSchema(app: "${w.app.slug}", package: $p) { __typename } }`),
      variables: { p: newPackage(w) },
    }),
    'Mutation.deleteTable': async (w) => gql(w, `mutation { deleteTable(app: "${w.app.slug}", name: "${await freshTable(w)}") { name } }`),
  },
};
