import { int, readSettings, type ReadContext, type ValuesOf } from './settings.js';

/** Limits of the catalog's rules. */
export const CATALOG_SETTINGS = {
  rubrosMaxDepth: int('RUBROS_MAX_DEPTH', { min: 1, max: 50, default: 10 }),
};

export type CatalogConfig = ValuesOf<typeof CATALOG_SETTINGS>;

export function catalogConfig(ctx: ReadContext): CatalogConfig {
  return readSettings(CATALOG_SETTINGS, ctx);
}
