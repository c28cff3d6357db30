#!/usr/bin/env node
// `npm run lint:imports`: dependencies point one way — edge (gateway/) → modules
// (subgraphs/<name>/) → kernel (subgraphs/core/). Checks every relative import of the source:
//   1. nothing outside gateway/ imports from gateway/ (tests and benchmarks may: they drive the edge);
//   2. the kernel imports no module;
//   3. a module imports another module only through its public API file (<name>/<name>.api.ts);
//      the assembly files (subgraphs/modules.ts, registry.ts, serve.ts) import module manifests.
// Import cycles are checked by dpdm (npm run lint:cycles).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && !f.startsWith('prisma/generated/') && fs.existsSync(path.join(root, f)));

const IMPORT = /(?:from\s+|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g;
const ASSEMBLY = new Set(['subgraphs/modules.ts', 'subgraphs/registry.ts', 'subgraphs/serve.ts']);
const moduleOf = (f) => {
  const m = /^subgraphs\/([^/]+)\//.exec(f);
  return m ? m[1] : null;
};

const problems = [];
for (const file of files) {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const from = moduleOf(file);
  for (const match of text.matchAll(IMPORT)) {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1])).replace(/\.js$/, '.ts');
    const say = (why) => problems.push(`${file}: imports ${match[1]} — ${why}`);
    if (target.startsWith('gateway/') && !file.startsWith('gateway/') && !/^(test|bench)\//.test(file)) {
      say('only gateway/ may import gateway/ (edge → modules → kernel)');
      continue;
    }
    const to = moduleOf(target);
    if (!to || to === from) continue;
    if (from === 'core') say('the kernel (subgraphs/core) imports no module');
    else if (to !== 'core' && from !== null && target !== `subgraphs/${to}/${to}.api.ts`) {
      say(`another module is reached through subgraphs/${to}/${to}.api.ts only`);
    } else if (
      from === null &&
      ASSEMBLY.has(file) &&
      to !== 'core' &&
      !target.endsWith('.module.ts') &&
      target !== `subgraphs/${to}/${to}.api.ts`
    ) {
      say('the assembly imports module manifests (<name>.module.ts) only');
    }
  }
}
if (problems.length) {
  process.stderr.write(problems.join('\n') + `\n${problems.length} import rule violation(s).\n`);
  process.exit(1);
}
process.stdout.write(`imports: ${files.length} files follow edge → modules → kernel.\n`);
