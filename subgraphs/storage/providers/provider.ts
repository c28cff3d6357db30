// One interface for the places a bucket's bytes live (DECISIONS §1): `object_store` on local
// files or the S3 API, `document_library` on Microsoft Graph drives. Keys are opaque and made by
// the storage module (`<bucket uuid>/<object uuid>/<version>/<filename>`), never by a client.
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';

export const PROVIDERS = ['object_store', 'document_library'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export interface ByteRange {
  /** First byte, inclusive. */
  start: number;
  /** Last byte, inclusive. */
  end: number;
}

export type LinkMode = 'view' | 'edit';

export interface LinkRequest {
  mode: LinkMode;
  /** Anonymous read-only sharing link (public object, view). */
  anonymous: boolean;
  /** The caller to grant per-user access to (e-mail), when not anonymous. */
  email?: string;
}

export interface StorageProvider {
  readonly name: ProviderName;
  /**
   * Stores `body` under `key`, consuming it as it arrives. Either the whole body is stored or,
   * when `body` errors or the provider fails, nothing is (no partial content is ever visible).
   */
  put(key: string, body: Readable, contentType: string): Promise<void>;
  /** The content (or one byte range of it); rejects with ProviderNotFound when absent. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Removes one key; absent keys are not an error. */
  delete(key: string): Promise<void>;
  /** Removes every key under `prefix` (a bucket being deleted). */
  deletePrefix(prefix: string): Promise<void>;
  /** Copies the content of one key to another key of the same provider. */
  copy(from: string, to: string): Promise<void>;
  /** Every key under `prefix` (cleanup pass and tests). */
  list(prefix: string): Promise<string[]>;
  /**
   * Removes the provider's own temporary files (a write spooled or staged locally) older than
   * `olderThanMs`: what a process that crashed mid-write left behind. Answers how many.
   */
  sweepTemp?(olderThanMs: number): Promise<number>;
  /** Document libraries only: a browser URL to view or edit the document. */
  link?(key: string, req: LinkRequest): Promise<string>;
}

/** The content of a key does not exist in the provider. */
export class ProviderNotFound extends Error {
  constructor(key: string) {
    super(`No content stored under "${key}".`);
    this.name = 'ProviderNotFound';
  }
}

/** The provider answered with a failure (network, permissions, remote error). */
export class ProviderFailure extends Error {
  constructor(
    message: string,
    readonly providerCode?: string,
  ) {
    super(message);
    this.name = 'ProviderFailure';
  }
}

/** Deletes the files directly in `dir` last modified more than `olderThanMs` ago (a missing dir is none). */
export async function removeStaleFiles(dir: string, olderThanMs: number): Promise<number> {
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw e;
  }
  let removed = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    const st = await fsp.stat(file).catch(() => null);
    if (!st?.isFile() || Date.now() - st.mtimeMs < olderThanMs) continue;
    await fsp.rm(file, { force: true });
    removed++;
  }
  return removed;
}
