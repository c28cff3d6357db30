// PostgreSQL and Redshift templates checked with the PostgreSQL grammar itself (libpg-query):
// exactly one SELECT (or WITH … SELECT), nothing blocked anywhere in the tree. For internal
// queries the tree also drives the rewrite of logical table names to physical ones: each
// RangeVar's location in the text is replaced by the quoted physical name.
import { loadModule, parseSync } from 'libpg-query';
import { analyticsErrors } from '../analytics-errors.js';
import { BLOCKED_SQL_FUNCTIONS } from './blocked.js';
import type { CompiledSql } from './template.js';

let loading: Promise<void> | null = null;
/** The parser is WebAssembly: loaded once per process. */
export const loadPgParser = (): Promise<void> => (loading ??= loadModule());

export interface InternalScope {
  /** The site's schema: the only schema a table reference may name. */
  schema: string;
  /** Logical name → physical name of the app's tables. */
  tables: Map<string, string>;
}

type Node = Record<string, unknown>;

const STATEMENT_WORDS: Record<string, string> = {
  InsertStmt: 'INSERT',
  UpdateStmt: 'UPDATE',
  DeleteStmt: 'DELETE',
  MergeStmt: 'MERGE',
  CreateStmt: 'CREATE',
  CreateTableAsStmt: 'CREATE',
  AlterTableStmt: 'ALTER',
  DropStmt: 'DROP',
  TruncateStmt: 'TRUNCATE',
  GrantStmt: 'GRANT',
  GrantRoleStmt: 'GRANT',
};

const refuse = (compiled: CompiledSql, message: string, byteOffset?: number) => {
  const field =
    byteOffset === undefined ? message : `${message} (position ${compiled.toTemplateOffset(charOffset(compiled.text, byteOffset))})`;
  return analyticsErrors.validation({ query_text: [field] });
};

function charOffset(text: string, byteOffset: number): number {
  return Buffer.from(text, 'utf8').subarray(0, byteOffset).toString('utf8').length;
}

/**
 * Parses and checks `compiled.text`; returns the text to run (with physical table names for
 * an internal scope). QueryValidationError naming the position otherwise.
 */
export function checkPostgres(compiled: CompiledSql, scope?: InternalScope): string {
  let tree: { stmts?: { stmt: Node }[] };
  try {
    tree = parseSync(compiled.text) as typeof tree;
  } catch (e) {
    const err = e as { message?: string; sqlDetails?: { cursorPosition?: number } };
    const at = err.sqlDetails?.cursorPosition;
    throw refuse(compiled, `Syntax error: ${String(err.message ?? 'unparseable').slice(0, 200)}`, at);
  }
  const stmts = tree.stmts ?? [];
  if (stmts.length !== 1) throw refuse(compiled, 'Exactly one statement is allowed.');
  const root = stmts[0].stmt;
  const select = root.SelectStmt as Node | undefined;
  if (!select) {
    const kind = Object.keys(root)[0] ?? 'statement';
    throw refuse(
      compiled,
      `Only SELECT queries are allowed (${STATEMENT_WORDS[kind] ?? kind.replace(/Stmt$/, '').toUpperCase()} is blocked).`,
    );
  }
  const cteNames = new Set<string>();
  const rangeVars: Node[] = [];
  walk(root, (key, node) => {
    if (key in STATEMENT_WORDS || (key.endsWith('Stmt') && key !== 'SelectStmt')) {
      throw refuse(compiled, `${STATEMENT_WORDS[key] ?? key.replace(/Stmt$/, '').toUpperCase()} is blocked.`, locationOf(node));
    }
    if (key === 'intoClause') throw refuse(compiled, 'SELECT INTO is blocked.');
    if (key === 'lockingClause') throw refuse(compiled, 'Locking clauses (FOR UPDATE, FOR SHARE) are blocked.');
    if (key === 'CommonTableExpr' && typeof node.ctename === 'string') cteNames.add(node.ctename);
    if (key === 'FuncCall') {
      const name = funcName(node);
      if (BLOCKED_SQL_FUNCTIONS.has(name) || (scope && (name.startsWith('pg_') || name.startsWith('lo_') || name.startsWith('dblink')))) {
        throw refuse(compiled, `Function ${name} is blocked.`, locationOf(node));
      }
    }
    if (key === 'RangeVar') rangeVars.push(node);
  });
  const stmt = stmts[0] as { stmt_location?: number; stmt_len?: number };
  const start = stmt.stmt_location ?? 0;
  const bytes = Buffer.from(compiled.text, 'utf8');
  const end = stmt.stmt_len ? start + stmt.stmt_len : bytes.length;
  // The statement alone (no trailing `;` or comment), so that runners can wrap it.
  return scope ? rewriteTables(compiled, scope, rangeVars, cteNames, start, end) : bytes.subarray(start, end).toString('utf8');
}

function funcName(node: Node): string {
  const parts = (node.funcname as { String?: { sval?: string } }[] | undefined) ?? [];
  return String(parts.at(-1)?.String?.sval ?? '').toLowerCase();
}

const locationOf = (node: Node): number | undefined =>
  typeof node.location === 'number' && node.location >= 0 ? node.location : undefined;

/** Depth-first over every object of the tree, with the key it sits under. */
function walk(value: unknown, visit: (key: string, node: Node) => void, key = ''): void {
  if (Array.isArray(value)) {
    for (const v of value) walk(v, visit, key);
  } else if (value && typeof value === 'object') {
    const node = value as Node;
    if (key) visit(key, node);
    for (const [k, v] of Object.entries(node)) if (v && typeof v === 'object') walk(v, visit, k);
  }
}

function rewriteTables(
  compiled: CompiledSql,
  scope: InternalScope,
  rangeVars: Node[],
  cteNames: Set<string>,
  start: number,
  end: number,
): string {
  const bytes = Buffer.from(compiled.text, 'utf8');
  const edits: { start: number; end: number; name: string }[] = [];
  for (const rv of rangeVars) {
    const rel = String(rv.relname ?? '');
    const schemaName = rv.schemaname as string | undefined;
    const at = locationOf(rv);
    if (rv.catalogname) throw refuse(compiled, 'Table names may not name a database.', at);
    if (schemaName !== undefined) {
      if (schemaName !== scope.schema && schemaName !== 'information_schema') {
        throw refuse(compiled, `Only this site's tables can be read (schema "${schemaName}" is not allowed).`, at);
      }
      continue;
    }
    if (rel.startsWith('pg_')) throw refuse(compiled, `System catalogs are not readable (${rel}).`, at);
    if (cteNames.has(rel)) continue;
    const physical = scope.tables.get(rel);
    if (!physical || physical === rel || at === undefined) continue;
    edits.push({ start: at, end: identifierEnd(bytes, at), name: `"${physical.replace(/"/g, '""')}"` });
  }
  edits.sort((a, b) => b.start - a.start);
  let out = bytes;
  let stmtEnd = end;
  for (const e of edits) {
    const name = Buffer.from(e.name, 'utf8');
    out = Buffer.concat([out.subarray(0, e.start), name, out.subarray(e.end)]);
    stmtEnd += name.length - (e.end - e.start);
  }
  return out.subarray(start, stmtEnd).toString('utf8');
}

/** End (exclusive) of the identifier token starting at byte `start`: quoted or bare. */
function identifierEnd(bytes: Buffer, start: number): number {
  if (bytes[start] === 0x22) {
    let i = start + 1;
    while (i < bytes.length) {
      if (bytes[i] === 0x22) {
        if (bytes[i + 1] === 0x22) i += 2;
        else return i + 1;
      } else i++;
    }
    return i;
  }
  let i = start;
  while (i < bytes.length) {
    const b = bytes[i];
    const ident = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x5f || b === 0x24 || b >= 0x80;
    if (!ident) break;
    i++;
  }
  return i;
}
