// Writes and checks on domains, inside the caller's transaction (Prisma) so the primary switch
// and the audit entry commit together.
import type { Tx } from '../core/db.js';

export const domainRepository = {
  /** The site owning `host`, if any domain row (active or not) holds it. */
  async ownerOf(tx: Tx, host: string): Promise<number | null> {
    const row = await tx.domain.findUnique({ where: { domain: host }, select: { siteId: true } });
    return row?.siteId ?? null;
  },

  async hasPrimary(tx: Tx, siteId: number): Promise<boolean> {
    return (await tx.domain.count({ where: { siteId, isPrimary: true } })) > 0;
  },

  /** Clears the primary flag on the site's other domains (before setting it on one). */
  async clearPrimary(tx: Tx, siteId: number, exceptId?: number): Promise<void> {
    await tx.domain.updateMany({
      where: { siteId, isPrimary: true, ...(exceptId !== undefined && { id: { not: exceptId } }) },
      data: { isPrimary: false },
    });
  },

  async countOthers(tx: Tx, siteId: number, id: number): Promise<number> {
    return tx.domain.count({ where: { siteId, id: { not: id } } });
  },

  create(tx: Tx, data: { slug: string; domain: string; siteId: number; isPrimary: boolean }) {
    return tx.domain.create({ data });
  },

  update(tx: Tx, id: number, data: { domain?: string; isPrimary?: boolean }) {
    return tx.domain.update({ where: { id }, data });
  },

  remove(tx: Tx, id: number) {
    return tx.domain.delete({ where: { id } });
  },
};
