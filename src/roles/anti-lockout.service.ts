import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { effectivePermissions } from '../auth/effective-permissions.service.js';
import { DomainError } from '../common/errors/domain-error.js';
import { SQL_DIALECT, type SqlDialect } from '../database/dialects/index.js';
import { UserEntity } from '../users/user.entity.js';
import { PermissionEntity, RolePermissionEntity } from './permission.entity.js';
import { RoleEntity } from './role.entity.js';
import { ADMINISTRATION_PERMISSIONS } from './roles.rules.js';

const LOCK = 'anti-lockout';

/**
 * Anti-lockout (docs/api.md "Users"): no operation may leave the system without an active user whose
 * effective permissions include both `administracion:usuarios:gestionar` and
 * `administracion:roles:gestionar`. Operations that can take those away (user deactivation and
 * role change, override updates, role permission replacement, role deactivation) call `lock()`
 * first and `assertAdministratorRemains()` after their change, inside the request's transaction.
 */
@Injectable()
export class AntiLockoutService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  /**
   * Serializes those operations until the transaction ends. Without it two requests could each
   * remove a different one of the last two administrators, each still seeing the other's
   * administrator, and both commit.
   */
  lock(): Promise<void> {
    return this.dialect.transactionLock(this.txHost.tx, LOCK, 'exclusive');
  }

  /** 409 `anti_lockout` unless the store, as this transaction now sees it, still has an administrator. */
  async assertAdministratorRemains(): Promise<void> {
    if (!(await this.administratorExists())) {
      throw new DomainError(
        'anti_lockout',
        'La operación dejaría el sistema sin un usuario activo con administracion:usuarios:gestionar y administracion:roles:gestionar',
      );
    }
  }

  private async administratorExists(): Promise<boolean> {
    const tx = this.txHost.tx;
    const codes = [...ADMINISTRATION_PERMISSIONS];
    // What active roles contribute of the two codes (an inactive role contributes nothing).
    const grants: Array<{ role_id: number; codigo: string }> = await tx
      .createQueryBuilder()
      .select(['rp.role_id AS role_id', 'p.codigo AS codigo'])
      .from(RolePermissionEntity, 'rp')
      .innerJoin(PermissionEntity, 'p', 'p.id = rp.permissionId')
      .innerJoin(RoleEntity, 'r', 'r.id = rp.roleId')
      .where('r.activo = :active', { active: true })
      .andWhere('p.codigo IN (:...codes)', { codes })
      .getRawMany();
    const byRole = new Map<number, string[]>();
    for (const g of grants) byRole.set(Number(g.role_id), [...(byRole.get(Number(g.role_id)) ?? []), g.codigo]);

    // Candidates: active users whose role contributes a code or whose overrides mention one (a
    // plain-text prefilter of the JSON document); the precedence rule then decides in code.
    const roleIds = [...byRole.keys()];
    const conditions = codes.map((_, i) => `u.permissionOverrides LIKE :code${i}`);
    if (roleIds.length) conditions.unshift('u.roleId IN (:...roleIds)');
    const candidates = await tx
      .getRepository(UserEntity)
      .createQueryBuilder('u')
      .select(['u.id', 'u.roleId', 'u.permissionOverrides'])
      .where('u.activo = :active', { active: true })
      .andWhere(`(${conditions.join(' OR ')})`, { roleIds, ...Object.fromEntries(codes.map((c, i) => [`code${i}`, `%${c}%`])) })
      .getMany();
    return candidates.some((u) => {
      const efectivos = new Set(effectivePermissions(byRole.get(u.roleId) ?? [], normalize(u.permissionOverrides)));
      return codes.every((c) => efectivos.has(c));
    });
  }
}

function normalize(overrides: Partial<UserEntity['permissionOverrides']> | null): UserEntity['permissionOverrides'] {
  return { granted: overrides?.granted ?? [], denied: overrides?.denied ?? [] };
}
