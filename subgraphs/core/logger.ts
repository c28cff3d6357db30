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

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}
