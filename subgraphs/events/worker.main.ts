// `npm run start:worker`: a process that only runs the events queue worker (and the outbox
// relay and sweeps), beside gateways started with EVENTS_WORKER=off or inline. Several such
// processes share the queue (BullMQ on Redis, or on PostgreSQL without REDIS_URL).
import { ConfigError, loadConfig } from '../core/config.js';
import { createLogger } from '../core/logger.js';
import { startPlatform } from '../core/platform.js';
import { describeStartupError } from '../core/startup-errors.js';
import { MODULES } from '../modules.js';
import { startWorker } from './delivery/delivery.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  const log = createLogger(config.logLevel);
  const platform = await startPlatform(config, log, { modules: MODULES });
  startWorker(platform);
  log.info({ backend: config.redisUrl ? 'redis' : 'postgresql' }, 'events worker running');
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'worker shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await platform.close().catch((e) => log.error({ err: (e as Error).message }, 'closing platform failed'));
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((e) => {
  process.stderr.write(`Worker ${describeStartupError(e).replace(/^Start/, 'start')}\n`);
  process.exit(e instanceof ConfigError ? 2 : 1);
});
