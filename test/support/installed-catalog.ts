import type { MigrationInterface } from 'typeorm';
import { POSTGRES_MIGRATIONS } from '../../migrations/postgres/index.js';
import { PERMISSION_CODES } from '../../src/auth/permissions.js';
import { type CapturedStatement, captureMigrations } from './mssql-ddl.js';

/** The roles, permissions and grants a list of migrations inserts, as their statements carry them. */
export interface InstalledCatalog {
  roles: Array<{ codigo: string; nombre: string; descripcion: string }>;
  permissions: Array<{ codigo: string; descripcion: string }>;
  /** `[permission code, role code]`, in the order the migrations insert them */
  grants: Array<[string, string]>;
}

/**
 * What the migrations installed, read from the statements they send (each migration keeps its
 * own literal copy of the rows it inserted). Either engine's statements: PostgreSQL grants a code
 * to an array of roles in one statement, SQL Server one statement per role.
 */
export function catalogInserted(statements: readonly CapturedStatement[]): InstalledCatalog {
  const parameters = (table: string) =>
    statements.filter((s) => new RegExp(String.raw`^\s*INSERT INTO (dbo\.)?${table} `).test(s.sql)).map((s) => s.parameters as unknown[]);
  return {
    roles: parameters('roles').map(([codigo, nombre, descripcion]) => ({ codigo, nombre, descripcion })) as InstalledCatalog['roles'],
    permissions: parameters('permissions').map(([codigo, descripcion]) => ({ codigo, descripcion })) as InstalledCatalog['permissions'],
    grants: parameters('role_permissions').flatMap(([codigo, roles]) =>
      (Array.isArray(roles) ? roles : [roles]).map((rol) => [codigo, rol]),
    ) as InstalledCatalog['grants'],
  };
}

/** The catalog of a fully migrated database (the PostgreSQL migrations; the SQL Server ones must match them). */
export async function installedCatalog(migrations: ReadonlyArray<new () => MigrationInterface> = POSTGRES_MIGRATIONS): Promise<InstalledCatalog> {
  return catalogInserted(await captureMigrations(migrations));
}

/** Every code of the permission registry the decorators read (src/auth/permissions.ts), sorted. */
export const REGISTERED_PERMISSION_CODES: readonly string[] = [...PERMISSION_CODES].sort();
