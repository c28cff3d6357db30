// MySQL/MariaDB templates checked with node-sql-parser's grammar for the dialect: exactly one
// SELECT (or WITH … SELECT), no blocked statement, clause or function anywhere in the tree.
import type { Parser } from 'node-sql-parser';
import { analyticsErrors } from '../analytics-errors.js';
import { BLOCKED_SQL_FUNCTIONS, BLOCKED_STATEMENTS } from './blocked.js';
import type { CompiledSql } from './template.js';

let parser: Parser | null = null;
let loading: Promise<void> | null = null;
/** The grammar is large: loaded once per process, before the first MySQL template is checked. */
export const loadMysqlParser = (): Promise<void> =>
  (loading ??= import('node-sql-parser').then((m) => {
    parser = new (m.default ?? m).Parser();
  }));

type Node = Record<string, unknown>;

const refuse = (compiled: CompiledSql, message: string, offset?: number) =>
  analyticsErrors.validation({
    query_text: [offset === undefined ? message : `${message} (position ${compiled.toTemplateOffset(offset)})`],
  });

export function checkMysql(compiled: CompiledSql, dialect: 'MySQL' | 'MariaDB' = 'MariaDB'): string {
  let ast: unknown;
  try {
    if (!parser) throw new Error('loadMysqlParser() must be awaited before checkMysql()');
    ast = parser.astify(compiled.text, { database: dialect });
  } catch (e) {
    const err = e as { message?: string; location?: { start?: { offset?: number } } };
    throw refuse(compiled, `Syntax error: ${String(err.message ?? 'unparseable').slice(0, 200)}`, err.location?.start?.offset);
  }
  const list = (Array.isArray(ast) ? ast : [ast]) as Node[];
  if (list.length !== 1) throw refuse(compiled, 'Exactly one statement is allowed.');
  const root = list[0];
  if (root.type !== 'select') throw refuse(compiled, `Only SELECT queries are allowed (${String(root.type).toUpperCase()} is blocked).`);
  walk(root, (node) => {
    const type = typeof node.type === 'string' ? node.type.toUpperCase() : '';
    if (type && (BLOCKED_STATEMENTS.includes(type) || ['REPLACE', 'CALL', 'SET', 'LOCK', 'LOAD', 'USE'].includes(type))) {
      throw refuse(compiled, `${type} is blocked.`);
    }
    if (node.into && typeof node.into === 'object' && (node.into as Node).position) throw refuse(compiled, 'SELECT … INTO is blocked.');
    if (node.locking_read) throw refuse(compiled, 'Locking reads (FOR UPDATE, LOCK IN SHARE MODE) are blocked.');
    if (node.type === 'function' || node.type === 'aggr_func') {
      const name = functionName(node.name);
      if (BLOCKED_SQL_FUNCTIONS.has(name)) throw refuse(compiled, `Function ${name} is blocked.`);
    }
  });
  return compiled.text;
}

function functionName(name: unknown): string {
  if (typeof name === 'string') return name.toLowerCase();
  const parts = (name as { name?: { value?: string }[] } | undefined)?.name;
  return String(parts?.at(-1)?.value ?? '').toLowerCase();
}

function walk(value: unknown, visit: (node: Node) => void): void {
  if (Array.isArray(value)) {
    for (const v of value) walk(v, visit);
  } else if (value && typeof value === 'object') {
    visit(value as Node);
    for (const v of Object.values(value)) if (v && typeof v === 'object') walk(v, visit);
  }
}
