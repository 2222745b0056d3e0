import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
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

/** A value no user id takes: marks the user id's place in the statement's parameter list. */
const USER_ID_SLOT = Number.MIN_SAFE_INTEGER;

/**
 * Resolves a user's effective permissions from the store in one query (SEED 5.2): permissions are
 * never carried in the token, so a change applies on the very next request.
 */
@Injectable()
export class EffectivePermissionsService {
  /**
   * The statement, written once by the query builder (so each engine gets its own quoting and
   * placeholders) and reused: every guarded request resolves permissions, and building the
   * statement anew each time was a measurable share of a guarded read (BENCHMARKS.md).
   */
  private statement?: { sql: string; parameters: unknown[]; userIdAt: number };

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async resolve(userId: number): Promise<UserAccess | undefined> {
    const { sql, parameters, userIdAt } = this.permissionsStatement();
    const rows: PermissionRow[] = await this.dataSource.query(
      sql,
      parameters.map((value, i) => (i === userIdAt ? userId : value)),
    );
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

  private permissionsStatement(): { sql: string; parameters: unknown[]; userIdAt: number } {
    if (!this.statement) {
      const [sql, parameters] = this.dataSource
        .createQueryBuilder()
        .select([
          'u.username AS username',
          'u.activo AS activo',
          'u.permission_overrides AS overrides',
          'r.codigo AS rol',
          'r.activo AS rol_activo',
          'p.codigo AS permiso',
        ])
        .from('users', 'u')
        .innerJoin('roles', 'r', 'r.id = u.role_id')
        .leftJoin('role_permissions', 'rp', 'rp.role_id = r.id AND r.activo = :active', { active: true })
        .leftJoin('permissions', 'p', 'p.id = rp.permission_id')
        .where('u.id = :userId', { userId: USER_ID_SLOT })
        .getQueryAndParameters();
      const userIdAt = parameters.indexOf(USER_ID_SLOT);
      if (userIdAt < 0) throw new Error('effective permissions: the statement has no user id parameter');
      this.statement = { sql, parameters, userIdAt };
    }
    return this.statement;
  }
}
