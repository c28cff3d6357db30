// `npm run cli -- <command> [options]`: administrative commands on the platform database
// (DATABASE_URL, or the embedded database in DATA_DIR while the server is stopped).
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../subgraphs/core/config.js';
import { errors, isAppError } from '../subgraphs/core/errors.js';
import { createLogger } from '../subgraphs/core/logger.js';
import { startPlatform, type Platform } from '../subgraphs/core/platform.js';
import { rotateKeys } from '../subgraphs/secrets/key-rotation.js';
import { MODULES } from '../subgraphs/modules.js';
import { createSuperuser } from '../subgraphs/tenancy/user.service.js';

type Command = (platform: Platform, args: string[]) => Promise<string>;

const COMMANDS: Record<string, { usage: string; run: Command }> = {
  createsuperuser: {
    usage: 'createsuperuser --username U --password P [--email E]',
    async run(platform, args) {
      const { values } = parseArgs({
        args,
        options: { username: { type: 'string' }, password: { type: 'string' }, email: { type: 'string', default: '' } },
      });
      if (!values.username || !values.password) throw new UsageError('--username and --password are required');
      const user = await createSuperuser(platform.prisma, {
        username: values.username,
        password: values.password,
        email: values.email ?? '',
      });
      return `Superuser "${user.username}" created (${user.uuid}).`;
    },
  },
  'rotate-keys': {
    usage: 'rotate-keys [--batch-size N]   (new secrets data keys; re-wraps keys of SECRETS_PREVIOUS_MASTER_KEYS)',
    async run(platform, args) {
      const { values } = parseArgs({ args, options: { 'batch-size': { type: 'string', default: '100' } } });
      const batchSize = Number(values['batch-size']);
      if (!Number.isInteger(batchSize) || batchSize < 1) throw new UsageError('--batch-size must be a positive whole number');
      const s = await rotateKeys(platform, { batchSize });
      const lines = [
        `Rotated secrets data keys: ${s.sites} site(s), ${s.reencrypted} value(s) re-encrypted, ` +
          `${s.rewrapped} data key(s) re-wrapped, ${s.retired} old version(s) retired.`,
      ];
      if (s.undecryptable) lines.push(`Warning: ${s.undecryptable} value(s) could not be decrypted and were left as they are.`);
      if (s.skippedSites.length) {
        // Exit 1 so scripts notice; the summary of what was done is still printed.
        process.stdout.write(`${lines.join('\n')}\n`);
        throw errors.secretUndecryptable(
          `Site(s) ${s.skippedSites.join(', ')} not rotated: their data keys open with no configured master key ` +
            '(add the old key to SECRETS_PREVIOUS_MASTER_KEYS).',
        );
      }
      return lines.join('\n');
    },
  },
};

class UsageError extends Error {}

function usage(): string {
  return `Usage: npm run cli -- <command>\n\nCommands:\n${Object.values(COMMANDS)
    .map((c) => `  ${c.usage}`)
    .join('\n')}\n`;
}

async function main(): Promise<number> {
  const [name, ...args] = process.argv.slice(2);
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(name ? `Unknown command "${name}".\n\n${usage()}` : usage());
    return 2;
  }
  let platform: Platform | null = null;
  try {
    const config = loadConfig();
    platform = await startPlatform(config, createLogger(process.env.LOG_LEVEL ?? 'warn'), { modules: MODULES, seed: true });
    process.stdout.write(`${await command.run(platform, args)}\n`);
    return 0;
  } catch (e) {
    if (e instanceof UsageError || e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n\n${usage()}`);
      return 2;
    }
    if (isAppError(e)) {
      const fields = e.errors ? ` ${JSON.stringify(e.errors)}` : '';
      process.stderr.write(`${e.message}${fields}\n`);
      return 1;
    }
    throw e;
  } finally {
    await platform?.close();
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`${(e as Error).stack ?? e}\n`);
    process.exit(1);
  },
);
