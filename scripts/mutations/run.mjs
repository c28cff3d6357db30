#!/usr/bin/env node
// `npm run test:mutations`: the test suite must catch deliberate faults. Each fault of
// scripts/mutations/faults.mjs is applied to a scratch copy of the committed tree (a detached
// git worktree sharing this checkout's node_modules), the tests named by the fault run there,
// and the fault counts as caught only if they fail. The run fails when any fault survives, or
// when a fault no longer applies (its pattern matches nothing: the code moved, update the list).
//
//   npm run test:mutations [-- --only <fault id substring>] [--keep] [--jobs N]
//
// Faults run N at a time (default 2, MUTATION_JOBS), each in its own scratch tree, so the
// check stays within CI's time bound.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAULTS } from './faults.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : null;
const keep = args.includes('--keep');
const git = (cwd, ...a) => execFileSync('git', a, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

const jobs = Math.max(1, Number(args.includes('--jobs') ? args[args.indexOf('--jobs') + 1] : (process.env.MUTATION_JOBS ?? 2)));

function makeScratch() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tenantry-mutations-'));
  git(root, 'worktree', 'add', '--detach', '--quiet', dir, 'HEAD');
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

/** Files of a scratch tree matching a fault's `files` (paths relative to the root, `*` within a segment, `**` across). */
function filesOf(scratch, pattern) {
  const re = new RegExp(
    '^' +
      pattern
        .split('**')
        .map((part) => part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*'))
        .join('.*') +
      '$',
  );
  return git(scratch, 'ls-files')
    .split('\n')
    .filter((f) => f && re.test(f));
}

function apply(scratch, fault) {
  let changed = 0;
  for (const edit of fault.edits) {
    for (const file of filesOf(scratch, edit.files)) {
      const full = path.join(scratch, file);
      const text = fs.readFileSync(full, 'utf8');
      const next = text.replace(edit.find, edit.replace);
      if (next !== text) {
        fs.writeFileSync(full, next);
        changed++;
      }
    }
  }
  return changed;
}

function runJest(scratch, tests, report) {
  return new Promise((resolve) => {
    const child = spawn(
      'node',
      [
        '--no-node-snapshot',
        '--experimental-vm-modules',
        '--no-warnings',
        'node_modules/jest/bin/jest.js',
        '--runInBand',
        '--silent',
        '--json',
        `--outputFile=${report}`,
        ...tests,
      ],
      { cwd: scratch, env: process.env, stdio: 'ignore' },
    );
    child.on('exit', (code) => resolve(code));
  });
}

async function runFault(scratch, fault) {
  try {
    const changed = apply(scratch, fault);
    if (changed === 0) {
      process.stdout.write(`STALE   ${fault.id}: its pattern matches nothing — update scripts/mutations/faults.mjs\n`);
      return 'stale';
    }
    const missing = fault.tests.filter((f) => !fs.existsSync(path.join(scratch, f)));
    if (missing.length) {
      process.stdout.write(`STALE   ${fault.id}: no such test file ${missing.join(', ')}\n`);
      return 'stale';
    }
    const started = Date.now();
    const report = path.join(scratch, '.mutation-report.json');
    fs.rmSync(report, { force: true });
    const status = await runJest(scratch, fault.tests, report);
    // Caught means a test failed: a suite that could not even run (a syntax error the fault
    // made, a missing server) proves nothing.
    let failedTests = 0;
    try {
      failedTests = JSON.parse(fs.readFileSync(report, 'utf8')).numFailedTests;
    } catch {
      failedTests = 0;
    }
    const caught = status !== 0 && failedTests > 0;
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    process.stdout.write(`${caught ? 'CAUGHT ' : 'SURVIVED'} ${fault.id} (${seconds}s, ${changed} file(s) changed)\n`);
    if (!caught) process.stdout.write(`         ${fault.why}\n`);
    return caught ? 'caught' : 'survived';
  } finally {
    git(scratch, 'checkout', '--quiet', '--', '.');
  }
}

const queue = FAULTS.filter((f) => !only || f.id.includes(only));
const scratches = Array.from({ length: Math.min(jobs, queue.length) }, makeScratch);
const results = [];
try {
  await Promise.all(
    scratches.map(async (scratch) => {
      for (let fault = queue.shift(); fault; fault = queue.shift()) results.push({ fault, outcome: await runFault(scratch, fault) });
    }),
  );
} finally {
  for (const scratch of scratches) {
    if (!keep) git(root, 'worktree', 'remove', '--force', scratch);
    else process.stdout.write(`scratch tree kept at ${scratch}\n`);
  }
}
const bad = results.filter((r) => r.outcome !== 'caught');
process.stdout.write(`\n${results.length - bad.length} of ${results.length} faults caught.\n`);
process.exit(bad.length ? 1 : 0);
