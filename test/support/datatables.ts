// Datatables for tests of the data service: posts a Data Package to create_schema on a site
// host and asserts it was created (201), returning the table views.
import { expect } from '@jest/globals';
import type { TestApp } from './app.js';

export interface TableTarget {
  host: string;
  token: string;
  app: string;
}

export async function createTables(t: TestApp, target: TableTarget, resources: unknown[]): Promise<any[]> {
  const res = await t.call('POST', `/api/apps/${target.app}/datatables/create_schema/`, {
    host: target.host,
    token: target.token,
    body: { resources },
  });
  if (res.status !== 201) throw new Error(`create_schema answered ${res.status}: ${JSON.stringify(res.body)}`);
  expect(res.status).toBe(201);
  return res.body.data;
}
