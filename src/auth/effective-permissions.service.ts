import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { SQL_DIALECT, type SqlDialect } from '../database/dialects/index.js';
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
 * Everything about one user: role, overrides and the role's permissions, one row per permission.
 * For what needs the whole list (the sign-in answer, GET /auth/me, the user's permission view,
 * the delegation rule) — not for the per-request check, which asks only about the codes it needs.
 */
const PERMISSIONS = new PreparedStatement<PermissionRow>(
  'SELECT u.username AS username, u.activo AS activo, u.permission_overrides AS overrides, r.codigo AS rol, r.activo AS rol_activo, ' +
    'p.codigo AS permiso FROM users u INNER JOIN roles r ON r.id = u.role_id ' +
    'LEFT JOIN role_permissions rp ON rp.role_id = r.id AND r.activo = :active ' +
    'LEFT JOIN permissions p ON p.id = rp.permission_id WHERE u.id = :userId',
);

/** What the guard learns about a request's caller, from one row. */
export interface RequestAuthorization {
  username: string;
  rol: string;
  activo: boolean;
  /** the access token's session is one of the user's, not ended, not expired */
  sessionActive: boolean;
  /** for each required code, in the order given: whether the caller holds it */
  holds: boolean[];
}

interface AuthorizationRow {
  username: string;
  rol: string;
  activo: boolean | number;
  sesion_activa: number;
  [holds: `p${number}`]: number;
}

/**
 * The guard's statement for routes that require `codes` permissions: one row of flags — is the
 * session live, and for each code `:p<i>`, does the user hold it: (granted by its role while the
 * role is active, or granted by an override) and not denied by one. Same rule as
 * effectivePermissions(), decided by the database for the few codes a route needs instead of
 * shipping every permission of the role to Node on every request.
 */
export function authorizationStatement(dialect: SqlDialect, codes: number): string {
  const holds = Array.from({ length: codes }, (_, i) => {
    const code = `:p${i}`;
    return (
      `CASE WHEN NOT ${dialect.jsonArrayContains('u.permission_overrides', 'denied', code)} AND (` +
      `${dialect.jsonArrayContains('u.permission_overrides', 'granted', code)} OR EXISTS (SELECT 1 FROM role_permissions rp ` +
      `INNER JOIN permissions p ON p.id = rp.permission_id WHERE rp.role_id = r.id AND r.activo = :active AND p.codigo = ${code})` +
      `) THEN 1 ELSE 0 END AS p${i}`
    );
  });
  return (
    'SELECT u.username AS username, r.codigo AS rol, u.activo AS activo, ' +
    'CASE WHEN EXISTS (SELECT 1 FROM sessions s WHERE s.id = :sessionId AND s.user_id = u.id AND s.ended_at IS NULL AND s.expires_at > :now) ' +
    'THEN 1 ELSE 0 END AS sesion_activa' +
    holds.map((h) => `, ${h}`).join('') +
    ' FROM users u INNER JOIN roles r ON r.id = u.role_id WHERE u.id = :userId'
  );
}

/**
 * Resolves a user's effective permissions from the store in one query: permissions are
 * never carried in the token, so a change applies on the very next request.
 */
@Injectable()
export class EffectivePermissionsService {
  /** one statement per number of required codes (0, 1, 2…), each a named prepared statement */
  private readonly authorizations = new Map<number, PreparedStatement<AuthorizationRow>>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  /** `db`: the request's transaction when the caller reads inside one (the If-Match check of an override change). */
  async resolve(userId: number, db: DataSource | EntityManager = this.dataSource): Promise<UserAccess | undefined> {
    return accessOf(userId, await PERMISSIONS.run(db, { active: true, userId }));
  }

  /**
   * The distinct permission overrides of the users whose role is `roleId` (each holder's effective
   * permissions are the role's, with these applied): what taking permissions away from the role
   * acts on. Read in `db`, the request's transaction, which holds the role's row locked.
   */
  async overridesOfHolders(roleId: number, db: EntityManager): Promise<PermissionOverrides[]> {
    const rows: Array<{ overrides: unknown }> = await db
      .createQueryBuilder()
      .select('u.permission_overrides', 'overrides')
      .from('users', 'u')
      .where('u.role_id = :roleId', { roleId })
      .getRawMany();
    const distinct = new Map<string, PermissionOverrides>();
    for (const row of rows) {
      const overrides = parseOverrides(row.overrides);
      distinct.set(JSON.stringify(overrides), overrides);
    }
    return [...distinct.values()];
  }

  /**
   * The per-request check, one round trip: does the user exist and is it active, is the session
   * `sessionId` one of its active ones at `now`, and which of `required` does it hold. `db`: the
   * request's transaction when an operation checks its caller again before it writes.
   */
  async authorize(
    userId: number,
    sessionId: string,
    now: Date,
    required: readonly string[],
    db: DataSource | EntityManager = this.dataSource,
  ): Promise<RequestAuthorization | undefined> {
    const values: Record<string, unknown> = { active: true, userId, sessionId, now };
    for (let i = 0; i < required.length; i++) values[`p${i}`] = required[i];
    const row = await this.authorization(required.length).one(db, values);
    if (!row) return undefined;
    return {
      username: row.username,
      rol: row.rol,
      activo: Boolean(row.activo),
      sessionActive: Number(row.sesion_activa) === 1,
      holds: required.map((_, i) => Number(row[`p${i}`]) === 1),
    };
  }

  private authorization(codes: number): PreparedStatement<AuthorizationRow> {
    let statement = this.authorizations.get(codes);
    if (!statement) {
      statement = new PreparedStatement<AuthorizationRow>(authorizationStatement(this.dialect, codes), { name: `guard_authorize_${codes}` });
      this.authorizations.set(codes, statement);
    }
    return statement;
  }
}

function accessOf(userId: number, rows: PermissionRow[]): UserAccess | undefined {
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
