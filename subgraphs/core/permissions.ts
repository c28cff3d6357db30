// The permission catalogue (DECISIONS §4): each module declares the permissions it adds in its
// manifest; the platform assembles them once at boot (platform.permissions). A permission on
// an organization cascades to its sites; `manage_<scope>` implies every narrower permission of
// its scope (manage_site covers the site's own and every site module's permissions).

export interface PermissionDef {
  codename: string;
  name: string;
  /** What it is about, as listed by GET /api/permissions/ (`organization`, `site`, `storage`, …). */
  resource: string;
  /** Where it is granted: on an organization, or on a site (directly or through its organization). */
  scope: 'organization' | 'site';
}

const MANAGE: Record<PermissionDef['scope'], string> = { organization: 'manage_organization', site: 'manage_site' };

export class PermissionCatalogue {
  readonly all: readonly PermissionDef[];
  readonly codenames: ReadonlySet<string>;
  private readonly byCodename: Map<string, PermissionDef>;

  constructor(defs: readonly PermissionDef[]) {
    this.byCodename = new Map();
    for (const d of defs) {
      if (this.byCodename.has(d.codename)) throw new Error(`permission ${d.codename} is declared twice`);
      this.byCodename.set(d.codename, d);
    }
    this.all = Object.freeze([...defs]);
    this.codenames = new Set(this.byCodename.keys());
  }

  get(codename: string): PermissionDef | undefined {
    return this.byCodename.get(codename);
  }

  /** The permissions that grant `permission`: itself and the `manage_*` of its scope. */
  granting(permission: string): string[] {
    const def = this.byCodename.get(permission);
    if (!def) throw new Error(`unknown permission ${permission}`);
    const manage = MANAGE[def.scope];
    return permission === manage ? [permission] : [permission, manage];
  }

  /** Codenames granted on sites (an invitation's site grants may name only these). */
  siteCodenames(): Set<string> {
    return new Set(this.all.filter((p) => p.scope === 'site').map((p) => p.codename));
  }
}
