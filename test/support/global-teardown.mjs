import { tsImport } from 'tsx/esm/api';

export default async function globalTeardown() {
  const mod = await tsImport('./global-teardown.impl.ts', import.meta.url);
  await mod.default();
}
