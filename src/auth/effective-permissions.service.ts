import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { PreparedStatement } from '../database/prepared-statement.js';
import type { PermissionOverrides } from '../users/user.entity.js';

export interface UserAccess {
  userId: number;
  username: string;
  activo: boolean;
  rol: string;
  rolActivo: boolean;
  rolPermisos: string[];
  granted: string[];
  denied: string[];
  /** (role permissions ∪ granted) − denied; sorted */
  efectivos: string[];
}

/** Effective permissions = (role permissions of an active role ∪ granted) − denied: a deny always wins. */
export function effectivePermissions(rolPermisos: readonly string[], overrides: PermissionOverrides): string[] {
  const denied = new Set(overrides.denied);
  return [...new Set([...rolPermisos, ...overrides.granted])].filter((c) => !denied.has(c)).sort();
}

function parseOverrides(raw: unknown): PermissionOverrides {
  const value = typeof raw === 'string' ? (JSON.parse(raw) as Partial<PermissionOverrides>) : ((raw ?? {}) as Partial<PermissionOverrides>);
  return { granted: [...(value.granted ?? [])].sort(), denied: [...(value.denied ?? [])].sort() };
}

interface PermissionRow {
  username: string;
  activo: boolean | number;
  overrides: unknown;
  rol: string;
  rol_activo: boolean | number;
  permiso: string | null;
}

/**
 * Every guarded request resolves permissions: one statement, prepared once (BENCHMARKS.md — building
 * it through the query builder on every request was a measurable share of a guarded read).
 */
const PERMISSIONS = new PreparedStatement<PermissionRow>(
  'SELECT u.username AS username, u.activo AS activo, u.permission_overrides AS overrides, r.codigo AS rol, r.activo AS rol_activo, ' +
    'p.codigo AS permiso FROM users u INNER JOIN roles r ON r.id = u.role_id ' +
    'LEFT JOIN role_permissions rp ON rp.role_id = r.id AND r.activo = :active ' +
    'LEFT JOIN permissions p ON p.id = rp.permission_id WHERE u.id = :userId',
);

/**
 * Resolves a user's effective permissions from the store in one query (SEED 5.2): permissions are
 * never carried in the token, so a change applies on the very next request.
 */
@Injectable()
export class EffectivePermissionsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** `db`: the request's transaction when the caller reads inside one (the If-Match check of an override change). */
  async resolve(userId: number, db: DataSource | EntityManager = this.dataSource): Promise<UserAccess | undefined> {
    const rows = await PERMISSIONS.run(db, { active: true, userId });
    const first = rows[0];
    if (!first) return undefined;
    const overrides = parseOverrides(first.overrides);
    const rolPermisos = rows
      .map((r) => r.permiso)
      .filter((p): p is string => !!p)
      .sort();
    return {
      userId,
      username: first.username,
      activo: Boolean(first.activo),
      rol: first.rol,
      rolActivo: Boolean(first.rol_activo),
      rolPermisos,
      granted: overrides.granted,
      denied: overrides.denied,
      efectivos: effectivePermissions(rolPermisos, overrides),
    };
  }
}
