// The one way record and query code reaches a datatable: app resolved for the caller
// (resolveApp: 404 unknown/foreign app, 401 anonymous), permission on the site checked (403),
// table looked up in the catalogue (404 `{error, detail}`), model parsed once per version.
import type { RequestContext } from '../../core/context.js';
import type { AppRow } from '../../tenancy/app.service.js';
import type { DataTable } from '../model/table-model.js';

export type DataPermission = 'data:read' | 'data:write';

export interface ResolvedTable {
  app: AppRow;
  table: DataTable;
}

export async function loadTable(_ctx: RequestContext, _appRef: string, _name: string, _permission: DataPermission): Promise<ResolvedTable> {
  throw new Error('loadTable: not implemented yet (table helper)');
}
