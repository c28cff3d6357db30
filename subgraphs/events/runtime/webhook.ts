// Proxy-mode functions: a POST of the params (or the event) to the function's webhook URL,
// signed per the Standard Webhooks scheme: headers `webhook-id`, `webhook-timestamp` and
// `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">` with the function's
// secret (`whsec_<base64>`). The answer's body (JSON, else text) is the result.
//
// SSRF: the address is checked after DNS resolution, inside the socket's own lookup, so a
// name cannot resolve to a public address for the check and a private one for the request.
// Loopback, private, link-local, CGNAT, multicast and unspecified addresses are refused unless
// EVENTS_WEBHOOK_ALLOW_HOSTS names the host (or the address). Redirects are not followed.
import crypto from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { failed, LIMITS, type RunOutcome } from './outcome.js';

export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  return 'v1,' + crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
}

function ipv4Blocked(ip: string): boolean {
  const [a, b] = ip.split('.').map(Number);
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}

/** Whether an address is loopback, private, link-local or otherwise not a public destination. */
export function isBlockedAddress(ip: string): boolean {
  if (net.isIPv4(ip)) return ipv4Blocked(ip);
  const v = ip.toLowerCase();
  const mapped = v.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/);
  if (mapped) return ipv4Blocked(mapped[1]);
  return v === '::' || v === '::1' || /^f[cd]/.test(v) || /^fe[89ab]/.test(v) || v.startsWith('ff') || v.startsWith('::ffff:');
}

export interface WebhookCall {
  url: string;
  headers: Record<string, string>;
  secret: string;
  payload: unknown;
  timeoutMs: number;
  /** Hosts or addresses allowed even when private (EVENTS_WEBHOOK_ALLOW_HOSTS). */
  allowHosts: readonly string[];
}

function guardedLookup(host: string, allow: readonly string[]): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      const list = addresses as dns.LookupAddress[];
      const bad = list.find((a) => isBlockedAddress(a.address) && !allow.includes(a.address) && !allow.includes(host));
      if (bad || list.length === 0) {
        const e = Object.assign(new Error(`The webhook address ${bad?.address ?? hostname} is not a public address.`), {
          code: 'EBLOCKED',
        });
        return callback(e, '', 4);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

function parseBody(text: string, contentType: string | undefined): unknown {
  if (contentType?.includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

export function callWebhook(call: WebhookCall): Promise<RunOutcome> {
  const url = new URL(call.url);
  const body = JSON.stringify(call.payload ?? null);
  const id = 'msg_' + crypto.randomUUID();
  const ts = Math.floor(Date.now() / 1000);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) && isBlockedAddress(host) && !call.allowHosts.includes(host))
    return Promise.resolve(failed(`The webhook address ${host} is not a public address.`));
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const req = lib.request(
      url,
      {
        method: 'POST',
        headers: {
          ...call.headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'webhook-id': id,
          'webhook-timestamp': String(ts),
          'webhook-signature': signWebhook(call.secret, id, ts, body),
        },
        lookup: net.isIP(host) ? undefined : guardedLookup(host, call.allowHosts),
        timeout: call.timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > LIMITS.resultBytes) {
            req.destroy();
            resolve(failed(`The webhook answer is larger than ${LIMITS.resultBytes} bytes.`));
          } else chunks.push(c);
        });
        res.on('end', () => {
          const result = parseBody(Buffer.concat(chunks).toString('utf8'), res.headers['content-type']);
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve({ status: 'succeeded', result, error: null, logs: [] });
          else resolve({ status: 'failed', result, error: `The webhook answered HTTP ${status}.`, logs: [] });
        });
        res.on('error', (e) => resolve(failed(e.message)));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      resolve({ status: 'timed_out', result: null, error: `The webhook did not answer within ${call.timeoutMs} ms.`, logs: [] });
    }, call.timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy(new Error('socket timed out')));
    req.on('error', (e) => resolve(failed(`The webhook call failed: ${e.message}`)));
    req.end(body);
  });
}
