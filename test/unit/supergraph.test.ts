// The committed supergraph must be what `npm run compose` makes of the subgraphs' SDL files.
import fs from 'node:fs';
import { composeSupergraph } from '../../scripts/compose.js';
import { buildSubgraph, SUBGRAPH_NAMES, SUPERGRAPH_FILE } from '../../subgraphs/registry.js';

test('schema/supergraph.graphql is up to date (run `npm run compose` when this fails)', () => {
  expect(fs.readFileSync(SUPERGRAPH_FILE, 'utf8')).toBe(composeSupergraph());
});

test.each(SUBGRAPH_NAMES)('subgraph %s builds with its resolvers', (name) => {
  const schema = buildSubgraph(name);
  expect(schema.getQueryType()?.getFields()._service).toBeDefined();
});

test('tenancy owns the entities that other subgraphs extend', () => {
  const sdl = fs.readFileSync(SUPERGRAPH_FILE, 'utf8');
  for (const type of ['Organization', 'Site', 'Domain', 'User', 'Group', 'App']) {
    expect(sdl).toMatch(
      new RegExp(`type ${type}\\n(  @join__type\\(graph: \\w+, key: "id"\\)\\n)*  @join__type\\(graph: TENANCY, key: "id"\\)`),
    );
  }
});
