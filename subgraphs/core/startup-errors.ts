// Start-up failures as one line for an operator: the cause and, where there is one, the
// variable that changes it; never a stack trace. Used by `npm start`, `npm run start:subgraph`,
// the worker and the CLI.
import { ConfigError } from './config.js';
import { classifyDbError, isDatabaseUnavailable } from './db-errors.js';

interface Where {
  /** DATABASE_URL was set (else the embedded server was used). */
  externalDatabase?: boolean;
  host?: string;
  port?: number;
}

function firstLine(value: unknown): string {
  if (value instanceof Error) return value.message.split('\n')[0] || value.name;
  if (value && typeof value === 'object' && typeof (value as { message?: unknown }).message === 'string') {
    return ((value as { message: string }).message.split('\n')[0] ?? '').trim();
  }
  return String(value);
}

export function describeStartupError(e: unknown, where: Where = {}): string {
  if (e instanceof ConfigError) return `Configuration error: ${e.message}`;
  const err = (e ?? {}) as { code?: unknown; syscall?: unknown; port?: unknown; address?: unknown };
  if (err.code === 'EADDRINUSE' || err.code === 'EADDRNOTAVAIL' || err.code === 'EACCES') {
    const what = err.code === 'EADDRINUSE' ? 'is in use' : err.code === 'EACCES' ? 'is not allowed' : 'is not available';
    const addr = `${where.host ?? err.address ?? ''}:${where.port ?? err.port ?? ''}`;
    return `Start failed: address ${addr} ${what} (PORT, HOST)`;
  }
  const db = where.externalDatabase ? 'the database at DATABASE_URL' : 'the database';
  if (isDatabaseUnavailable(e) || err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') {
    return `Start failed: ${db} does not answer: ${firstLine(e)}`;
  }
  const code = classifyDbError(e)?.code ?? (typeof err.code === 'string' ? err.code : undefined);
  if (code === '28P01' || code === '28000') return `Start failed: ${db} refused the sign-in: ${firstLine(e)}`;
  if (code === '3D000') return `Start failed: ${db} does not exist: ${firstLine(e)}`;
  return `Start failed: ${firstLine(e)}`;
}
