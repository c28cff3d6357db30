// Start-up seeds of the tenancy module: the permission catalogue and the first superuser.
import type { Platform } from '../core/platform.js';
import { ensureFirstSuperuser } from './user.service.js';

export async function seedTenancy(platform: Platform): Promise<void> {
  const all = platform.permissions.all;
  await platform.pool.query(
    `INSERT INTO permissions (codename, name, resource)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
     ON CONFLICT (codename) DO UPDATE SET name = EXCLUDED.name, resource = EXCLUDED.resource`,
    [all.map((p) => p.codename), all.map((p) => p.name), all.map((p) => p.resource)],
  );
  await ensureFirstSuperuser(platform.prisma, platform.config.admin, platform.log);
}
