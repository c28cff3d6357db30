// Compiles the platform's TypeScript to JavaScript in dist/ (one .js file per .ts file, the
// same folders), so that `npm start` runs plain Node without a TypeScript loader in the
// process. esbuild only strips types (tsconfig has isolatedModules, so file by file is
// exact); `npm run typecheck` is the type check. Files the code reads at run time (schema/,
// prisma/migrations/) stay where they are: subgraphs/core/paths.ts finds them from dist/ too.
//
// `node scripts/build.mjs --if-stale` (prestart and friends) builds only when a source file
// changed since the last build; `prepare` builds after `npm ci`.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(root, 'dist');
const STAMP = path.join(OUT, '.build-stamp');
// Everything the entry points (gateway/main.ts, subgraphs/serve.ts, the worker, scripts/cli.ts)
// can import; tests and benchmarks keep running from the sources through tsx.
const SOURCE_DIRS = ['gateway', 'subgraphs', 'prisma/generated', 'scripts'];

function sources() {
  const out = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) out.push(file);
    }
  };
  for (const dir of SOURCE_DIRS) walk(path.join(root, dir));
  return out.sort();
}

/** Names, sizes and times of the sources and of this script: a new value means build again. */
function fingerprint(files) {
  const hash = crypto.createHash('sha256');
  for (const file of [fileURLToPath(import.meta.url), ...files]) {
    const st = fs.statSync(file);
    hash.update(`${path.relative(root, file)}\0${st.size}\0${st.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

async function build() {
  const files = sources();
  const stamp = fingerprint(files);
  if (process.argv.includes('--if-stale') && fs.existsSync(STAMP) && fs.readFileSync(STAMP, 'utf8') === stamp) return;
  const started = Date.now();
  const esbuild = await import('esbuild');
  // A fresh folder: a source deleted since the last build leaves no module behind.
  fs.rmSync(OUT, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: files,
    outdir: OUT,
    outbase: root,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  fs.writeFileSync(STAMP, stamp);
  process.stderr.write(`build: ${files.length} files to dist/ in ${Date.now() - started} ms\n`);
}

build().catch((e) => {
  process.stderr.write(`build failed: ${e?.stack ?? e}\n`);
  process.exit(1);
});
