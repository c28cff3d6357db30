// The relationship model of a table's app: the app's catalogue (one prepared query) turned
// into DataTables (models cached per table version) and relationships (cached per set of
// versions), so a schema change anywhere in the app is seen by the next request.
import type { RequestContext } from '../../core/context.js';
import type { DataTable } from '../model/table-model.js';
import { catalogueRepository } from '../table/catalogue.repository.js';
import { tableFromRow } from '../table/table-access.js';
import { relationshipsOf, type RelationshipModel } from './relationship-model.js';

export async function appRelationships(ctx: RequestContext, table: DataTable): Promise<RelationshipModel> {
  const rows = await catalogueRepository.listForApp(ctx.platform.pool, table.appId);
  return relationshipsOf(rows.map((r) => tableFromRow(ctx, r, table.schemaName)));
}
