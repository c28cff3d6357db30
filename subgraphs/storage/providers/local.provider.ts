// `object_store` on local files under DATA_DIR/objects. A write goes to a temporary file in the
// same file system, is fsynced, then renamed into place: a reader sees the whole file or none.
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { ProviderNotFound, removeStaleFiles, type ByteRange, type StorageProvider } from './provider.js';

const SAFE_KEY = /^[A-Za-z0-9._\-/]+$/;

/**
 * Buffer sizes of the file streams (bench/storage-throughput.ts gives its bare side the same).
 * Writes: up to this many bytes queue while one write is in progress and go down in one
 * writev, so the socket keeps being read instead of pausing after every 16 KiB (the default).
 */
export const WRITE_HIGH_WATER_MARK = 1024 * 1024;
export const READ_HIGH_WATER_MARK = 256 * 1024;

export class LocalProvider implements StorageProvider {
  readonly name = 'object_store' as const;
  private readonly tmpDir: string;

  constructor(private readonly root: string) {
    this.tmpDir = path.join(root, '.tmp');
  }

  /** The file of a key; keys are made by the module, this only guards against mistakes. */
  private file(key: string): string {
    if (!SAFE_KEY.test(key) || key.split('/').some((p) => p === '' || p === '.' || p === '..')) {
      throw new Error(`Invalid storage key "${key}".`);
    }
    return path.join(this.root, key);
  }

  async put(key: string, body: Readable): Promise<void> {
    const target = this.file(key);
    await fsp.mkdir(this.tmpDir, { recursive: true });
    const tmp = path.join(this.tmpDir, `${crypto.randomUUID()}.part`);
    try {
      // flush: fsync before close, so the rename below publishes durable content.
      await pipeline(body, fs.createWriteStream(tmp, { flags: 'wx', mode: 0o600, flush: true, highWaterMark: WRITE_HIGH_WATER_MARK }));
      await fsp.mkdir(path.dirname(target), { recursive: true });
      await fsp.rename(tmp, target);
    } catch (e) {
      await fsp.rm(tmp, { force: true });
      throw e;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const file = this.file(key);
    // Open first so that a missing file is a clean rejection, not a stream error later.
    const fd = await new Promise<number>((resolve, reject) =>
      fs.open(file, 'r', (e, fd) => {
        if (!e) return resolve(fd);
        reject(e.code === 'ENOENT' ? new ProviderNotFound(key) : e);
      }),
    );
    // A stream on the numeric descriptor reads with callbacks (a FileHandle's stream reads
    // through a promise per chunk); it closes the descriptor when it ends or is destroyed.
    const highWaterMark = READ_HIGH_WATER_MARK;
    return fs.createReadStream(file, range ? { fd, start: range.start, end: range.end, highWaterMark } : { fd, highWaterMark });
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.file(key), { force: true });
    await this.pruneEmptyDirs(path.dirname(this.file(key)));
  }

  async deletePrefix(prefix: string): Promise<void> {
    const dir = this.file(prefix.replace(/\/+$/, ''));
    await fsp.rm(dir, { recursive: true, force: true });
    await this.pruneEmptyDirs(path.dirname(dir));
  }

  async copy(from: string, to: string): Promise<void> {
    await this.put(to, await this.get(from));
  }

  async list(prefix: string): Promise<string[]> {
    const trimmed = prefix.replace(/\/+$/, '');
    const base = trimmed ? this.file(trimmed) : this.root;
    const out: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries: fs.Dirent[];
      try {
        entries = await fsp.readdir(dir, { withFileTypes: true });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw e;
      }
      for (const e of entries) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) {
          if (p !== this.tmpDir) await walk(p);
        } else out.push(path.relative(this.root, p).split(path.sep).join('/'));
      }
    };
    await walk(base);
    return out;
  }

  /** Temporary files of writes that never finished (a crash between the write and the rename). */
  sweepTemp(olderThanMs: number): Promise<number> {
    return removeStaleFiles(this.tmpDir, olderThanMs);
  }

  /** Removes directories left empty by a delete, up to the root. */
  private async pruneEmptyDirs(dir: string): Promise<void> {
    while (dir.startsWith(this.root + path.sep)) {
      try {
        await fsp.rmdir(dir);
      } catch {
        return; // not empty, or gone
      }
      dir = path.dirname(dir);
    }
  }
}
