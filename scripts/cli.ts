// `npm run cli -- <command> [options]`: administrative commands on the platform database
// (DATABASE_URL, or the embedded database in DATA_DIR; while the server runs, the CLI connects to
// the server's embedded PostgreSQL instead of starting its own).
//
// Exit codes: 0 done, 2 usage error (unknown command or option, missing value), 1 failure
// (invalid input, conflict, database unreachable, ...). Every error is one line on stderr.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, loadConfig } from '../subgraphs/core/config.js';
import { errors, isAppError } from '../subgraphs/core/errors.js';
import { createLogger } from '../subgraphs/core/logger.js';
import { startPlatform, type Platform } from '../subgraphs/core/platform.js';
import { describeStartupError } from '../subgraphs/core/startup-errors.js';
import { rotateKeys } from '../subgraphs/secrets/key-rotation.js';
import { MODULES } from '../subgraphs/modules.js';
import { parseUserFields } from '../subgraphs/tenancy/user-input.js';
import { createSuperuser } from '../subgraphs/tenancy/user.service.js';
import { PASSWORD_ENV, readPassword, UsageError } from './cli-password.js';

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | undefined>;

interface Command {
  usage: string;
  help: string;
  options: Options;
  /** Checks and completes the options before any database work (a UsageError or an AppError). */
  prepare?: (values: Values) => Promise<Values>;
  run: (platform: Platform, values: Values) => Promise<string>;
}

const COMMANDS: Record<string, Command> = {
  createsuperuser: {
    usage: 'createsuperuser --username U --email E [--password P]',
    help:
      'Creates a staff superuser, with the rules of POST /api/users/ (username, e-mail, password of\n' +
      `8 to 128 characters). The password is read from ${PASSWORD_ENV} when set, else prompted for\n` +
      '(without echo) when stdin is a terminal, else read from the first line of stdin. --password\n' +
      'is still accepted but is visible to other users in the process list and shell history.',
    options: { username: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' } },
    async prepare(values) {
      if (values.username === undefined) throw new UsageError('--username is required');
      if (values.email === undefined) throw new UsageError('--email is required');
      const password = await readPassword(values.password as string | undefined);
      // The REST rules, checked before the database is opened; createSuperuser checks them again.
      parseUserFields({ username: values.username, email: values.email, password }, 'create');
      return { ...values, password };
    },
    async run(platform, values) {
      const user = await createSuperuser(platform.prisma, {
        username: values.username as string,
        password: values.password as string,
        email: values.email as string,
      });
      return `Superuser "${user.username}" created (${user.uuid}).`;
    },
  },
  'rotate-keys': {
    usage: 'rotate-keys [--batch-size N]',
    help: 'New secrets data keys for every site; re-wraps keys of SECRETS_PREVIOUS_MASTER_KEYS. Works while the server runs.',
    options: { 'batch-size': { type: 'string', default: '100' } },
    async prepare(values) {
      const batchSize = Number(values['batch-size']);
      if (!Number.isInteger(batchSize) || batchSize < 1) throw new UsageError('--batch-size must be a positive whole number');
      return values;
    },
    async run(platform, values) {
      const s = await rotateKeys(platform, { batchSize: Number(values['batch-size']) });
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

function usage(): string {
  return (
    'Usage: npm run cli -- <command> [options]\n\nCommands:\n' +
    Object.values(COMMANDS)
      .map((c) => `  ${c.usage}`)
      .join('\n') +
    '\n\nRun "npm run cli -- <command> --help" for one command. Exit codes: 0 done, 2 usage error, 1 failure.\n'
  );
}

const commandHelp = (c: Command) => `Usage: npm run cli -- ${c.usage}\n\n${c.help}\n`;

/** An AppError as one line: the message, then each field's messages. */
function oneLine(e: { message: string; errors?: Record<string, string[]> }): string {
  const fields = Object.entries(e.errors ?? {})
    .map(([field, messages]) => [field, messages.filter((m) => m !== e.message)] as const)
    .filter(([, messages]) => messages.length)
    .map(([field, messages]) => `${field}: ${messages.join(' ')}`);
  return fields.length ? `${e.message.replace(/\.$/, '')}: ${fields.join('; ')}` : e.message;
}

function parse(command: Command, name: string, args: string[]): Values {
  try {
    const { values } = parseArgs({ args, options: { ...command.options, help: { type: 'boolean', short: 'h' } }, strict: true });
    return values as Values;
  } catch (e) {
    // node's messages are several lines long ("... To specify a positional argument starting
    // with a '-', place it at the end of the command after '--' ..."): keep the first sentence.
    const first = (e as Error).message.split(/\.\s/)[0].replace(/\.$/, '');
    throw new UsageError(`${first}. Run "npm run cli -- ${name} --help" for the options.`);
  }
}

let where: Parameters<typeof describeStartupError>[1] = {};

async function main(): Promise<number> {
  const [name, ...args] = process.argv.slice(2);
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? process.stderr : process.stdout).write(usage());
    return name === undefined ? 2 : 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(`Unknown command "${name}". Run "npm run cli -- --help" for the commands.\n`);
    return 2;
  }
  let platform: Platform | null = null;
  try {
    let values = parse(command, name, args);
    if (values.help) {
      process.stdout.write(commandHelp(command));
      return 0;
    }
    if (command.prepare) values = await command.prepare(values);
    const config = loadConfig();
    where = { externalDatabase: !!config.databaseUrl };
    platform = await startPlatform(config, createLogger(process.env.LOG_LEVEL ?? 'warn'), { modules: MODULES, seed: true });
    process.stdout.write(`${await command.run(platform, values)}\n`);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${e.message}\n`);
      return 2;
    }
    if (e instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${e.message}\n`);
      return 2;
    }
    if (isAppError(e)) {
      process.stderr.write(`${oneLine(e)}\n`);
      return 1;
    }
    process.stderr.write(`${describeStartupError(e, where)}\n`);
    return 1;
  } finally {
    await platform?.close().catch(() => undefined);
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`${describeStartupError(e)}\n`);
    process.exit(1);
  },
);
