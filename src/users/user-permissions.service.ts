import { Injectable } from '@nestjs/common';
import { displayInstant } from '../audit/utc-instant.js';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { AuditService } from '../audit/audit.service.js';
import { DelegationPolicy } from '../auth/delegation.policy.js';
import { EffectivePermissionsService, effectivePermissions } from '../auth/effective-permissions.service.js';
import { DomainError, type FieldError, ValidationFailedError } from '../common/errors/domain-error.js';
import { AntiLockoutService } from '../roles/anti-lockout.service.js';
import { compare, PermissionsService } from '../roles/permissions.service.js';
import { PointInTimeService } from '../roles/point-in-time.service.js';
import { RoleEntity } from '../roles/role.entity.js';
import type { UpdateOverridesDto, UserPermissionsDto } from './dto/user-permissions.dto.js';
import { type PermissionOverrides, UserEntity } from './user.entity.js';
import { UsersService } from './users.service.js';
import { PERMISSION_SET_VERSION, VersionedWrites } from '../common/versioning/versioned-writes.js';

/**
 * A user's permission view — role permissions, overrides and the effective set, where a deny
 * always wins — now or at an instant, and the override update.
 */
@Injectable()
export class UserPermissionsService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly versions: VersionedWrites,
    private readonly audit: AuditService,
    private readonly access: EffectivePermissionsService,
    private readonly permissions: PermissionsService,
    private readonly antiLockout: AntiLockoutService,
    private readonly delegation: DelegationPolicy,
    private readonly history: PointInTimeService,
    private readonly users: UsersService,
  ) {}

  /** The view as the guard resolves it on every request. */
  async view(userId: number): Promise<UserPermissionsDto> {
    const access = await this.access.resolve(userId, this.txHost.tx);
    if (!access) throw new DomainError('no_encontrado', `El usuario ${userId} no existe`);
    const { username, rol, rolPermisos, granted, denied, efectivos } = access;
    return { userId, username, rol, rolPermisos, granted, denied, efectivos };
  }

  /** The view as it was at `asOf`: the user's, its role's and the grants' versions of that instant. */
  async viewAsOf(userId: number, rawAsOf: string): Promise<UserPermissionsDto> {
    const asOf = this.history.instant(rawAsOf);
    const [user] = await this.history.rows<{ username: string; role_id: number; permission_overrides: string }>(
      'users',
      ['username', 'role_id', 'permission_overrides'],
      { id: userId },
      asOf,
    );
    if (!user) throw new DomainError('no_encontrado', `El usuario ${userId} no existía en ${displayInstant(asOf)}`);
    const roleId = Number(user.role_id);
    const [role] = await this.history.rows<{ codigo: string; activo: boolean | number }>('roles', ['codigo', 'activo'], { id: roleId }, asOf);
    const rolPermisos = role?.activo ? await this.permissions.ofRoleAsOf(roleId, asOf) : [];
    return this.compose(
      userId,
      user.username,
      role?.codigo ?? (await this.users.roleCode(roleId)),
      rolPermisos,
      parseOverrides(user.permission_overrides),
    );
  }

  /**
   * Replaces the user's overrides (one JSON document `{granted, denied}`, stored sorted without
   * duplicates). Refusals in order: 400 (an unknown code, a code in both lists), 404, 403
   * `privilegio_insuficiente` (the caller's own overrides, whatever the body; a user holding a
   * permission the caller lacks; a granted code the caller lacks, or one its removal from
   * `denied` would make effective), 409 `anti_lockout`. Takes
   * effect on the user's next request, since the guard reads permissions from the store.
   */
  async updateOverrides(userId: number, dto: UpdateOverridesDto, callerId: number): Promise<UserPermissionsDto> {
    await this.antiLockout.lock();
    const granted = (await this.permissions.requireKnown(dto.granted, 'granted')).map((p) => p.codigo);
    const denied = (await this.permissions.requireKnown(dto.denied, 'denied')).map((p) => p.codigo);
    const both = granted.filter((c) => denied.includes(c));
    if (both.length) {
      const errors: FieldError[] = both.map((c) => ({ field: 'denied', message: `${c} no puede estar en granted y en denied a la vez` }));
      throw new ValidationFailedError(errors, 'Un permiso no puede estar concedido y denegado a la vez');
    }
    const user = await this.users.find(userId, true);
    this.delegation.assertNotSelf(callerId, userId, 'overrides');
    const role = await this.txHost.tx.findOneByOrFail(RoleEntity, { id: user.roleId });
    const rolPermisos = role.activo ? await this.permissions.ofRole(role.id) : [];
    const before = parseOverrides(user.permissionOverrides);
    const after: PermissionOverrides = { granted, denied };
    // Lifting a deny hands out what it held back, as much as a grant does: both are handed out.
    const had = new Set(effectivePermissions(rolPermisos, before));
    const lifted = effectivePermissions(rolPermisos, after).filter((code) => !had.has(code));
    await this.delegation.assertDelegable(callerId, { target: userId, grants: [...new Set([...granted, ...lifted])] });

    await this.versions.update(UserEntity, { id: userId }, { permissionOverrides: after }, PERMISSION_SET_VERSION);
    await this.antiLockout.assertAdministratorRemains();
    await this.audit.record('usuario.permisos_update', 'usuario', userId, { before, after });
    return this.compose(userId, user.username, role.codigo, rolPermisos, after);
  }

  private compose(userId: number, username: string, rol: string, rolPermisos: string[], overrides: PermissionOverrides): UserPermissionsDto {
    return {
      userId,
      username,
      rol,
      rolPermisos,
      granted: overrides.granted,
      denied: overrides.denied,
      efectivos: effectivePermissions(rolPermisos, overrides),
    };
  }
}

/** The stored document, tolerant of either form (text or parsed) and of missing lists; sorted. */
function parseOverrides(raw: unknown): PermissionOverrides {
  const value = (typeof raw === 'string' ? JSON.parse(raw) : (raw ?? {})) as Partial<PermissionOverrides>;
  return { granted: [...(value.granted ?? [])].sort(compare), denied: [...(value.denied ?? [])].sort(compare) };
}
