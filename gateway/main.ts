// `npm start`: the whole platform in one process.
import { ConfigError, loadConfig } from '../subgraphs/core/config.js';
import { createLogger } from '../subgraphs/core/logger.js';
import { startPlatform } from '../subgraphs/core/platform.js';
import { describeStartupError } from '../subgraphs/core/startup-errors.js';
import { MODULES } from '../subgraphs/modules.js';
import { buildApp } from './app.js';

let where: Parameters<typeof describeStartupError>[1] = {};

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
  where = { externalDatabase: !!config.databaseUrl, host: config.host, port: config.port };
  const log = createLogger(config.logLevel);
  const started = Date.now();
  const platform = await startPlatform(config, log, { modules: MODULES, seed: true });
  const app = await buildApp(platform);
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  log.info({ url: `http://${config.host}:${port}`, startupMs: Date.now() - started }, 'platform listening');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await app.close().catch((e) => log.error({ err: e.message }, 'closing HTTP server failed'));
    await platform.close().catch((e) => log.error({ err: e.message }, 'closing platform failed'));
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

// One line naming the cause (and the variable), no stack trace; a configuration error exits 2.
main().catch((e) => {
  process.stderr.write(`${describeStartupError(e, where)}\n`);
  process.exit(e instanceof ConfigError ? 2 : 1);
});
