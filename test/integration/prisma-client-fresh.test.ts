// The generated Prisma client is committed (so `npm ci && npm start` needs no generation
// step); it must be what `npm run prisma:generate` produces from prisma/schema.prisma now.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function listFiles(dir: string, base = dir): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = path.join(dir, d.name);
    return d.isDirectory() ? listFiles(full, base) : [path.relative(base, full)];
  });
}

test('prisma/generated is up to date with prisma/schema.prisma', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'prisma-gen-'));
  try {
    fs.mkdirSync(path.join(tmp, 'prisma'));
    fs.copyFileSync('prisma/schema.prisma', path.join(tmp, 'prisma/schema.prisma'));
    const run = spawnSync(process.execPath, ['scripts/prisma-generate.mjs', '--schema', path.join(tmp, 'prisma/schema.prisma')], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    const fresh = path.join(tmp, 'prisma/generated');
    const files = listFiles(fresh).sort();
    expect(listFiles('prisma/generated').sort()).toEqual(files);
    for (const f of files) {
      expect({ f, text: fs.readFileSync(path.join('prisma/generated', f), 'utf8') }).toEqual({
        f,
        text: fs.readFileSync(path.join(fresh, f), 'utf8'),
      });
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
