import { tsImport } from 'tsx/esm/api';

export default async function globalTeardown() {
  const { default: teardown } = await tsImport('./teardown-database.ts', import.meta.url);
  await teardown();
}
