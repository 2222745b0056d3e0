// Jest loads globalSetup with Node's own ESM loader, which cannot resolve the project's
// TypeScript sources; tsx compiles them for this one import.
import { tsImport } from 'tsx/esm/api';

export default async function globalSetup() {
  const { default: setup } = await tsImport('./setup-database.ts', import.meta.url);
  await setup();
}
