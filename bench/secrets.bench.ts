// Secrets benchmark (issue 5 item 10): the owner reads a private secret by key on its site's
// host — tenant resolution, authentication, the secrets:read check, the row with its type and
// tags, and AES-256-GCM decryption. The bare side reads the same row with one prepared `pg`
// query and returns it as stored (no access check, no decryption).
import { sealValue } from '../subgraphs/secrets/secret-crypto.js';
import { ensureSystemTypes } from '../subgraphs/secrets/secret-type.service.js';
import type { Benchmark, BenchEnv } from './bench-types.js';
import { benchCallers } from './callers.js';

const HOST = 'bench-secrets.localhost';
const KEY = 'bench-db';

async function world({ platform, user }: BenchEnv): Promise<void> {
  const q = async (sql: string, params: unknown[] = []) => (await platform.pool.query(sql, params)).rows;
  if ((await q('SELECT 1 FROM sites WHERE slug = $1', ['bench-secrets'])).length) return;
  const [org] = await q(`INSERT INTO organizations (slug, name) VALUES ('bench-secrets-org', 'Bench Secrets') RETURNING id`);
  await q(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'owner')`, [org.id, user.id]);
  const [site] = await q(
    `INSERT INTO sites (slug, name, organization_id, schema_name) VALUES ('bench-secrets', 'Bench secrets', $1, 'bench_secrets') RETURNING id`,
    [org.id],
  );
  await q(`INSERT INTO domains (slug, domain, site_id, is_primary) VALUES ('bench-secrets-localhost', $1, $2, true)`, [HOST, site.id]);
  await ensureSystemTypes(platform.pool, site.id);
  const [type] = await q(`SELECT id FROM secret_types WHERE site_id = $1 AND slug = 'basic-auth'`, [site.id]);
  const sealed = await sealValue(
    platform,
    { siteId: site.id, appId: null, key: KEY, sensitivity: 'private' },
    { username: 'bench', password: 'bench-password' },
  );
  await q(
    `INSERT INTO secrets (site_id, key, secret_type_id, ciphertext, iv, auth_tag, key_version, created_by_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [site.id, KEY, type.id, sealed.ciphertext, sealed.iv, sealed.authTag, sealed.keyVersion, user.id],
  );
}

export const SECRETS_BENCHMARKS: Benchmark[] = [
  {
    name: 'GET /api/secrets/{key}/ (private)',
    prepare: async (env) => {
      await world(env);
      return { method: 'GET', url: `/api/secrets/${KEY}/`, headers: { authorization: `Bearer ${env.token}`, host: HOST } };
    },
    // 200 callers holding secrets:read: the grant each one was given is remembered per caller.
    cold: async (env) => {
      await world(env);
      const tokens = await benchCallers(env, 'bench-secrets-org', ['secrets:read'], 200);
      return tokens.map((token) => ({
        method: 'GET' as const,
        url: `/api/secrets/${KEY}/`,
        headers: { authorization: `Bearer ${token}`, host: HOST },
      }));
    },
    bare:
      ({ platform }) =>
      async () => {
        const { rows } = await platform.pool.query({
          name: 'bare_secret',
          text: `SELECT s.key, t.name AS type_name, s.ciphertext, s.iv, s.auth_tag, s.key_version,
            COALESCE((SELECT array_agg(g.name) FROM secret_tag_links l JOIN secret_tags g ON g.id = l.tag_id WHERE l.secret_id = s.id), '{}') AS tags
           FROM secrets s JOIN secret_types t ON t.id = s.secret_type_id JOIN domains d ON d.site_id = s.site_id
          WHERE d.domain = $1 AND s.app_id IS NULL AND s.key = $2`,
          values: [HOST, KEY],
        });
        const r = rows[0];
        return {
          key: r.key,
          tags: r.tags,
          secret_type: r.type_name,
          value: { ciphertext: r.ciphertext.toString('base64'), key_version: r.key_version },
        };
      },
  },
];
