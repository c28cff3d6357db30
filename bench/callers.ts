// Many distinct callers for the cold-cache variants: users who are members of an
// organization with the given permissions, each with an access token.
import { signAccessToken } from '../subgraphs/auth/jwt.service.js';
import { userRepository } from '../subgraphs/tenancy/user.repository.js';
import type { BenchEnv } from './bench-types.js';

export async function benchCallers(env: BenchEnv, orgSlug: string, permissions: string[], n: number): Promise<string[]> {
  const { platform } = env;
  const org = (await platform.pool.query('SELECT id FROM organizations WHERE slug = $1', [orgSlug])).rows[0];
  if (!org) throw new Error(`no organization ${orgSlug}`);
  const tokens: string[] = [];
  for (let i = 0; i < n; i++) {
    const user = await userRepository.create(platform.prisma, {
      username: `${orgSlug}-caller-${i}-${Date.now().toString(36)}`,
      email: `${orgSlug}-caller-${i}@example.test`,
      passwordHash: 'unusable',
    });
    await platform.pool.query(`INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', $3)`, [
      org.id,
      user.id,
      permissions,
    ]);
    tokens.push(signAccessToken(platform, user));
  }
  return tokens;
}
