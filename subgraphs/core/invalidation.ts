// Cache invalidation across every process of one platform (DECISIONS §1 Scale-out). A change
// published here applies at once to this process's caches and reaches every other process
// (gateway, subgraph servers, a second gateway, the CLI) through PostgreSQL LISTEN/NOTIFY on
// the platform database, typically within milliseconds. While the listening connection is
// down, a process cannot know what it missed: it forgets every cached entry when it
// reconnects, and the caches' own time bounds (docs/architecture.md) limit staleness meanwhile.
import crypto from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';

export type Invalidation =
  /** A user's authentication state (deactivated, deleted, demoted, password changed); every user without `uuid`. */
  | { kind: 'user'; uuid?: string }
  /** A browser session ended (its id's SHA-256). */
  | { kind: 'session'; hash: string }
  /** API keys (a key revoked, an app, site or organization deactivated). */
  | { kind: 'apiKeys' }
  /** An access token revoked before its expiry. */
  | { kind: 'accessToken'; jti: string }
  /** Host → site resolution: one host, or all. */
  | { kind: 'tenant'; host?: string }
  /** Recently granted access (grant cache): one area, or all. */
  | { kind: 'grants'; area?: string }
  /** Everything (sent to local listeners after a gap in delivery). */
  | { kind: 'all' };

type Listener = (change: Invalidation) => void;

export const INVALIDATION_CHANNEL = 'tenantry_invalidate';
const RECONNECT_MS = [100, 500, 1000, 2000, 5000];

export class InvalidationBus {
  /** This process's identity in notifications: its own are already applied. */
  readonly origin = crypto.randomUUID();
  private readonly listeners = new Set<Listener>();
  private client: pg.Client | null = null;
  private closed = false;
  private attempt = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly databaseUrl: string | null,
    private readonly log: Logger,
  ) {}

  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Applies a change here at once and sends it to the other processes (fire and forget). */
  publish(change: Invalidation): void {
    this.deliver(change);
    if (!this.client) return;
    const payload = JSON.stringify({ o: this.origin, c: change });
    this.client.query('SELECT pg_notify($1, $2)', [INVALIDATION_CHANNEL, payload]).catch((e: Error) => {
      this.log.warn({ err: e.message }, 'could not broadcast a cache invalidation');
    });
  }

  private deliver(change: Invalidation): void {
    for (const l of this.listeners) {
      try {
        l(change);
      } catch (e) {
        this.log.error({ err: (e as Error).message }, 'cache invalidation listener failed');
      }
    }
  }

  /** Starts listening for other processes' changes; resolves once listening (or at once without a database). */
  async start(): Promise<void> {
    if (!this.databaseUrl || this.closed) return;
    const client = new pg.Client({ connectionString: this.databaseUrl, application_name: 'tenantry-invalidation' });
    client.on('notification', (msg) => this.receive(msg.payload));
    client.on('error', (e) => this.lost(client, e));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    await client.connect();
    await client.query(`LISTEN ${INVALIDATION_CHANNEL}`);
    this.client = client;
    this.attempt = 0;
  }

  private receive(payload: string | undefined): void {
    try {
      const msg = JSON.parse(payload ?? '') as { o?: string; c?: Invalidation };
      if (msg.o === this.origin || !msg.c || typeof msg.c.kind !== 'string') return;
      this.deliver(msg.c);
    } catch {
      this.log.warn('ignored a malformed cache invalidation notification');
    }
  }

  private lost(client: pg.Client, e: Error): void {
    if (this.client !== client || this.closed) return;
    this.client = null;
    client.end().catch(() => undefined);
    this.log.warn({ err: e.message }, 'cache invalidation listener lost its connection; reconnecting');
    this.reconnect();
  }

  private reconnect(): void {
    if (this.closed || this.timer) return;
    const delay = RECONNECT_MS[Math.min(this.attempt++, RECONNECT_MS.length - 1)];
    this.timer = setTimeout(() => {
      this.timer = null;
      this.start()
        .then(() => this.deliver({ kind: 'all' })) // whatever was published meanwhile is unknown
        .catch(() => this.reconnect());
    }, delay);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    if (client) await client.end().catch(() => undefined);
  }
}
