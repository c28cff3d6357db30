// The per-execution cost of templates (issue 14 item 9): parse a template into text and
// placeholders, compile it with the engine's markers and check it with the engine's grammar,
// as the first execution of a saved query does, and the cached lookup later executions make.
// Prints microseconds per execution for each engine.
//
//   node --import tsx bench/analytics-compile.ts [--iterations 5000]
import { parseArgs } from 'node:util';
import { loadPgParser } from '../subgraphs/analytics/template/pg-check.js';
import { loadMysqlParser } from '../subgraphs/analytics/template/mysql-check.js';
import { prepareQuery, preparedFor } from '../subgraphs/analytics/template/prepare.js';
import { parseTemplate } from '../subgraphs/analytics/template/template.js';
import type { Engine } from '../subgraphs/analytics/engines/connector.js';

const SQL =
  'SELECT region, count(*) AS n, sum(amount) AS total FROM orders WHERE amount > {{ min }} AND region <> {{ skip }} GROUP BY region ORDER BY region';
const CASES: { engine: Engine; text: string }[] = [
  { engine: 'internal', text: SQL },
  { engine: 'postgresql', text: SQL },
  { engine: 'mysql', text: SQL },
  { engine: 'clickhouse', text: SQL },
  {
    engine: 'elasticsearch',
    text: '{"query": {"bool": {"filter": [{"range": {"amount": {"gt": {{ min }}}}}, {"term": {"region": "{{ skip }}"}}]}}, "size": 100}',
  },
];

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { iterations: { type: 'string', default: '5000' } } });
  const n = Number(values.iterations);
  await loadPgParser();
  await loadMysqlParser();
  const scope = { schema: 'bench', tables: new Map([['orders', 'bench_orders']]) };
  for (const c of CASES) {
    const once = () => prepareQuery(c.engine, parseTemplate(c.text), c.engine === 'internal' ? scope : undefined);
    for (let i = 0; i < Math.min(500, n); i++) once();
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) once();
    const us = Number(process.hrtime.bigint() - start) / 1000 / n;
    const cachedStart = process.hrtime.bigint();
    for (let i = 0; i < n; i++) preparedFor(c.engine, c.text, c.engine === 'internal' ? scope : undefined);
    const cached = Number(process.hrtime.bigint() - cachedStart) / 1000 / n;
    process.stdout.write(
      `${c.engine.padEnd(14)} ${us.toFixed(1)} µs first execution (parse + compile + check), ${cached.toFixed(1)} µs later ones (cached), ${n} iterations\n`,
    );
  }
}

void main();
