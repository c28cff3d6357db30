// Helpers for storage tests: multipart bodies built by hand (as a browser sends them) and raw
// requests through the test app.
import crypto from 'node:crypto';
import type { TestApp } from './app.js';

export type Part = { name: string; value: string } | { name: string; filename: string; content: Buffer | string; type?: string };

export function multipart(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `----tenantry${crypto.randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    if ('filename' in p) {
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: ${p.type ?? 'application/octet-stream'}\r\n\r\n`,
        ),
        Buffer.isBuffer(p.content) ? p.content : Buffer.from(p.content),
        Buffer.from('\r\n'),
      );
    } else {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}\r\n`));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A 1×1 PNG (its signature is what file-type detects). */
export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f2d0a10000000049454e44ae426082',
  'hex',
);

export interface RawCall {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer;
}

/** A request whose body is sent as given (Buffer), with no JSON encoding. */
export async function send(
  t: TestApp,
  method: string,
  url: string,
  opts: { host: string; token?: string; headers?: Record<string, string>; payload?: Buffer | string } = { host: 'localhost' },
): Promise<RawCall> {
  const headers: Record<string, string> = { host: opts.host, ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await t.app.inject({ method: method as 'GET', url, headers, payload: opts.payload });
  let body: unknown = undefined;
  try {
    body = JSON.parse(res.body);
  } catch {
    body = res.body;
  }
  return { status: res.statusCode, body, headers: res.headers as RawCall['headers'], raw: res.rawPayload };
}

export async function upload(
  t: TestApp,
  opts: { host: string; token?: string; app: string; bucket: string; parts: Part[]; route?: string; headers?: Record<string, string> },
): Promise<RawCall> {
  const { body, contentType } = multipart(opts.parts);
  return send(t, 'POST', `/api/apps/${opts.app}/storage/buckets/${opts.bucket}/objects/${opts.route ?? ''}`, {
    host: opts.host,
    token: opts.token,
    headers: { 'content-type': contentType, ...opts.headers },
    payload: body,
  });
}
