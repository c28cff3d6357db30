// Jest loads global setup outside its ESM transform; tsx loads the TypeScript implementation.
import { tsImport } from 'tsx/esm/api';

export default async function globalSetup() {
  const mod = await tsImport('./global-setup.impl.ts', import.meta.url);
  await mod.default();
}
