// `document_library` on Microsoft Graph drives (SharePoint document libraries). The app signs in
// with the client-credentials grant; each storage key is a drive path. A body is spooled to a
// temporary file first (Graph upload sessions need the total size in every Content-Range), then
// sent with one PUT when small or through an upload session in 5 MiB chunks when large; an upload
// session only creates the item when its last chunk arrives, so no partial file is visible.
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { StorageConfig } from '../../core/config.js';
import { ProviderFailure, ProviderNotFound, removeStaleFiles, type ByteRange, type LinkRequest, type StorageProvider } from './provider.js';

type GraphSettings = NonNullable<StorageConfig['graph']>;

/** Bodies up to this size go up in one request; larger ones through an upload session. */
const SIMPLE_UPLOAD_MAX = 4 * 1024 * 1024;
/** Upload-session chunk: a multiple of 320 KiB, as Graph requires. */
const CHUNK = 16 * 320 * 1024;
const TIMEOUT_MS = 60_000;

export class GraphProvider implements StorageProvider {
  readonly name = 'document_library' as const;
  private token: { value: string; expiresAt: number } | null = null;
  private readonly drive: string;

  constructor(
    private readonly settings: GraphSettings,
    private readonly tmpDir: string,
  ) {
    this.drive = `${settings.baseUrl}/sites/${encodeURIComponent(settings.siteId)}/drive`;
  }

  private async accessToken(): Promise<string> {
    if (this.token && this.token.expiresAt > Date.now() + 60_000) return this.token.value;
    const res = await fetch(`${this.settings.authorityUrl}/${encodeURIComponent(this.settings.tenantId)}/oauth2/v2.0/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: this.settings.clientId,
        client_secret: this.settings.clientSecret,
        scope: 'https://graph.microsoft.com/.default',
      }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!res.ok) throw new ProviderFailure(`Document library sign-in failed (HTTP ${res.status}).`, 'auth_failed');
    const body = (await res.json()) as { access_token: string; expires_in: number };
    this.token = { value: body.access_token, expiresAt: Date.now() + body.expires_in * 1000 };
    return body.access_token;
  }

  /** `root:/a/b.docx:` with every segment encoded. */
  private item(key: string): string {
    return `${this.drive}/root:/${key.split('/').map(encodeURIComponent).join('/')}:`;
  }

  private async call(url: string, init: RequestInit & { okStatuses?: number[] } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${await this.accessToken()}`);
    const res = await fetch(url, { ...init, headers, signal: init.signal ?? AbortSignal.timeout(TIMEOUT_MS) });
    return res;
  }

  private async fail(res: Response, what: string): Promise<never> {
    const body = (await res.json().catch(() => ({}))) as { error?: { code?: string } };
    throw new ProviderFailure(`Document library ${what} failed (HTTP ${res.status}).`, body.error?.code);
  }

  async put(key: string, body: Readable): Promise<void> {
    await fsp.mkdir(this.tmpDir, { recursive: true });
    const spool = path.join(this.tmpDir, `${crypto.randomUUID()}.graph`);
    try {
      await pipeline(body, fs.createWriteStream(spool, { mode: 0o600 }));
      const { size } = await fsp.stat(spool);
      if (size <= SIMPLE_UPLOAD_MAX) {
        const res = await this.call(`${this.item(key)}/content`, { method: 'PUT', body: await fsp.readFile(spool) });
        if (!res.ok) await this.fail(res, 'upload');
        return;
      }
      await this.uploadSession(key, spool, size);
    } finally {
      await fsp.rm(spool, { force: true });
    }
  }

  private async uploadSession(key: string, file: string, size: number): Promise<void> {
    const created = await this.call(`${this.item(key)}/createUploadSession`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ item: { '@microsoft.graph.conflictBehavior': 'replace' } }),
    });
    if (!created.ok) await this.fail(created, 'upload session');
    const { uploadUrl } = (await created.json()) as { uploadUrl: string };
    const fh = await fsp.open(file, 'r');
    try {
      const buf = Buffer.alloc(CHUNK);
      for (let start = 0; start < size; start += CHUNK) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(CHUNK, size - start), start);
        // The upload URL is pre-authorized: no Authorization header (as Graph documents).
        const res = await fetch(uploadUrl, {
          method: 'PUT',
          headers: { 'content-range': `bytes ${start}-${start + bytesRead - 1}/${size}` },
          body: buf.subarray(0, bytesRead),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        if (!res.ok) {
          await fetch(uploadUrl, { method: 'DELETE' }).catch(() => undefined);
          await this.fail(res, 'upload chunk');
        }
      }
    } finally {
      await fh.close();
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const headers: Record<string, string> = range ? { range: `bytes=${range.start}-${range.end}` } : {};
    const res = await this.call(`${this.item(key)}/content`, { headers, signal: AbortSignal.timeout(10 * 60_000) });
    if (res.status === 404) throw new ProviderNotFound(key);
    if (!res.ok || !res.body) await this.fail(res, 'download');
    return Readable.fromWeb(res.body as import('node:stream/web').ReadableStream);
  }

  async delete(key: string): Promise<void> {
    const res = await this.call(this.item(key).slice(0, -1), { method: 'DELETE' });
    if (!res.ok && res.status !== 404) await this.fail(res, 'delete');
  }

  async deletePrefix(prefix: string): Promise<void> {
    await this.delete(prefix.replace(/\/+$/, ''));
  }

  async copy(from: string, to: string): Promise<void> {
    await this.put(to, await this.get(from));
  }

  /** Spool files of uploads that never finished (a crash while sending). */
  sweepTemp(olderThanMs: number): Promise<number> {
    return removeStaleFiles(this.tmpDir, olderThanMs);
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    const walk = async (folder: string): Promise<void> => {
      let url: string | undefined = `${this.item(folder)}/children`;
      while (url) {
        const res = await this.call(url);
        if (res.status === 404) return;
        if (!res.ok) await this.fail(res, 'list');
        const page = (await res.json()) as { value: { name: string; folder?: unknown }[]; '@odata.nextLink'?: string };
        for (const child of page.value) {
          const p = `${folder}/${child.name}`;
          if (child.folder) await walk(p);
          else out.push(p);
        }
        url = page['@odata.nextLink'];
      }
    };
    await walk(prefix.replace(/\/+$/, ''));
    return out;
  }

  async link(key: string, req: LinkRequest): Promise<string> {
    if (req.anonymous) {
      const res = await this.call(`${this.item(key)}/createLink`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'view', scope: 'anonymous' }),
      });
      if (res.status === 404) throw new ProviderNotFound(key);
      if (!res.ok) await this.fail(res, 'sharing link');
      return ((await res.json()) as { link: { webUrl: string } }).link.webUrl;
    }
    const invite = await this.call(`${this.item(key)}/invite`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        recipients: [{ email: req.email }],
        roles: [req.mode === 'edit' ? 'write' : 'read'],
        requireSignIn: true,
        sendInvitation: false,
      }),
    });
    if (invite.status === 404) throw new ProviderNotFound(key);
    if (!invite.ok) await this.fail(invite, 'access grant');
    const item = await this.call(this.item(key).slice(0, -1));
    if (!item.ok) await this.fail(item, 'item read');
    return ((await item.json()) as { webUrl: string }).webUrl;
  }
}
