// A matrix world: one organization owned by a fresh user, its site (with a host) and an app,
// plus what every module fixture's setup adds. Several worlds can share one platform (the
// isolation tests build a victim and an attacker): every name carries the world's tag.
import type { TestApp } from '../app.js';
import { insertApp, insertOrg, insertSite } from '../tenants.js';
import { FIXTURES } from './index.js';
import type { MatrixWorld } from './types.js';

export async function buildWorld(t: TestApp, tag: string): Promise<MatrixWorld> {
  const owner = await t.createUser();
  const ownerToken = t.tokenFor(owner);
  const orgSlug = `matrix-org-${tag}`;
  const org = { ...(await insertOrg(t.platform, orgSlug, owner.id)), slug: orgSlug };
  const host = `${tag}.matrix-site.test`;
  const siteSlug = `matrix-site-${tag}`;
  const site = { ...(await insertSite(t.platform, org.id, siteSlug, host)), slug: siteSlug, host };
  const appSlug = `matrix-app-${tag}`;
  const app = { ...(await insertApp(t.platform, site.id, appSlug)), slug: appSlug };
  let counter = 0;
  const w: MatrixWorld = {
    t,
    owner,
    ownerToken,
    org,
    site,
    app,
    asOwner: (method, url, body, onHost = host) => t.call(method, url, { token: ownerToken, host: onHost, body }),
    unique: (prefix) => `${prefix}${tag}${++counter}`,
    state: {},
  };
  for (const f of FIXTURES) await f.setup?.(w);
  return w;
}
