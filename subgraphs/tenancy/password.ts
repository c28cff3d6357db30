// Password hashing with argon2id.
import argon2 from 'argon2';

const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (plain: string): Promise<string> => argon2.hash(plain, OPTIONS);

export async function verifyPassword(hash: string | null, plain: string): Promise<boolean> {
  if (!hash) return false;
  try {
    return await argon2.verify(hash, plain);
  } catch {
    return false;
  }
}

// Verifying against this keeps the time of a login for an unknown user equal to a known one.
let dummy: Promise<string> | null = null;
export async function burnPasswordCheck(plain: string): Promise<void> {
  dummy ??= hashPassword('timing-equaliser');
  await verifyPassword(await dummy, plain);
}
