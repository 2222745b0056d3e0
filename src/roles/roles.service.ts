import { Inject, Injectable } from '@nestjs/common';
import { displayInstant } from '../audit/utc-instant.js';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { In } from 'typeorm';
import { Activation } from '../common/activation/activation.js';
import { Edits } from '../common/activation/edits.js';
import { AuditService } from '../audit/audit.service.js';
import { DelegationPolicy } from '../auth/delegation.policy.js';
import { Clock } from '../common/context/clock.js';
import { DomainError, NotFoundError } from '../common/errors/domain-error.js';
import { containsAny, containsPattern } from '../common/pagination/search.js';
import { SQL_DIALECT, type SqlDialect } from '../database/dialects/index.js';
import { UserEntity } from '../users/user.entity.js';
import { AntiLockoutService } from './anti-lockout.service.js';
import { type CreateRoleDto, RolDto, type RolePermissionsDto, type RolesQueryDto, type UpdateRoleDto } from './dto/role.dto.js';
import { RolePermissionEntity } from './permission.entity.js';
import { PermissionsService } from './permissions.service.js';
import { PointInTimeService } from './point-in-time.service.js';
import { RoleEntity } from './role.entity.js';
import { PERMISSION_SET_VERSION, VersionedWrites } from '../common/versioning/versioned-writes.js';

/**
 * Roles: codigo unique (inactive roles included) and immutable; DELETE
 * deactivates, refused while an active user holds the role; permission sets replaced whole.
 * Audit events use the role's codigo as targetId.
 */
@Injectable()
export class RolesService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly versions: VersionedWrites,
    private readonly audit: AuditService,
    private readonly activation: Activation,
    private readonly edits: Edits,
    private readonly permissions: PermissionsService,
    private readonly antiLockout: AntiLockoutService,
    private readonly delegation: DelegationPolicy,
    private readonly history: PointInTimeService,
    private readonly clock: Clock,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  async list(query: RolesQueryDto): Promise<RolDto[]> {
    const qb = this.txHost.tx.createQueryBuilder(RoleEntity, 'r');
    if (!query.incluirInactivos) qb.andWhere('r.activo = :activo', { activo: true });
    if (query.search) qb.andWhere(containsAny(['r.codigo', 'r.nombre']), { pattern: containsPattern(query.search) });
    const rows = await qb.getMany();
    return rows.map((r) => RolDto.of(r)).sort((a, b) => (a.codigo < b.codigo ? -1 : 1));
  }

  async get(codigo: string): Promise<RolDto> {
    return RolDto.of(await this.find(codigo));
  }

  async create(dto: CreateRoleDto): Promise<RolDto> {
    const tx = this.txHost.tx;
    const duplicate = `Ya existe un rol con codigo ${dto.codigo}`;
    if (await tx.existsBy(RoleEntity, { codigo: dto.codigo })) throw new DomainError('duplicado', duplicate);
    const now = this.clock.now();
    const role = { codigo: dto.codigo, nombre: dto.nombre, descripcion: dto.descripcion ?? '', activo: true, createdAt: now, updatedAt: now };
    try {
      await tx.insert(RoleEntity, role);
    } catch (err) {
      if (this.dialect.isUniqueViolation(err)) throw new DomainError('duplicado', duplicate);
      throw err;
    }
    await this.audit.record('rol.create', 'rol', dto.codigo, { after: { codigo: role.codigo, nombre: role.nombre, descripcion: role.descripcion } });
    return RolDto.of(role);
  }

  async update(codigo: string, dto: UpdateRoleDto): Promise<RolDto> {
    const role = await this.find(codigo, true);
    const changes = { nombre: dto.nombre, descripcion: dto.descripcion };
    return RolDto.of(await this.edits.apply({ entity: RoleEntity, row: role, changes, resource: 'rol', auditId: codigo }));
  }

  /**
   * DELETE: soft delete. 409 `rol_en_uso` while an active user holds the role; a repeat is a no-op.
   * Deactivating takes every permission of the role away from its holders, as emptying its set
   * would, so the delegation rule weighs them the same way, first: 403 `privilegio_insuficiente`
   * unless the caller holds every effective permission of each of them, active or not. Without it a weaker manager
   * could deactivate the role, reactivate a holder it then outranks, reset its password, and have
   * the holder's permissions back once an administrator reactivated the role.
   */
  async deactivate(codigo: string, callerId: number): Promise<void> {
    await this.antiLockout.lock();
    const role = await this.find(codigo, true);
    await this.activation.set({
      entity: RoleEntity,
      row: role,
      activo: false,
      resource: 'rol',
      auditId: codigo,
      check: async () => {
        // 403 before the 409 state rules, as every delegation refusal
        const refusal = await this.delegation.refusalOfHoldersOf(callerId, role, await this.permissions.ofRole(role.id));
        if (refusal) throw refusal;
        const holders = await this.txHost.tx.countBy(UserEntity, { roleId: role.id, activo: true });
        if (holders > 0) throw new DomainError('rol_en_uso', `El rol ${codigo} está asignado a ${holders} usuario(s) activo(s)`);
      },
      // Unreachable while rol_en_uso holds (only inactive users keep the role); kept as the guarantee.
      afterWrite: () => this.antiLockout.assertAdministratorRemains(),
    });
  }

  /**
   * Idempotent: reactivating an active role answers it and writes no event. A real reactivation
   * makes the role's permissions assignable again, and its (inactive) holders' once they are
   * reactivated, so the delegation rule applies as to adding them: 403 `privilegio_insuficiente`
   * unless the caller holds them all.
   */
  async reactivate(codigo: string, callerId: number): Promise<RolDto> {
    const role = await this.find(codigo, true);
    return RolDto.of(
      await this.activation.set({
        entity: RoleEntity,
        row: role,
        activo: true,
        resource: 'rol',
        auditId: codigo,
        check: async () => this.delegation.assertCanGrant(callerId, await this.permissions.ofRole(role.id)),
      }),
    );
  }

  async permissionsOf(codigo: string): Promise<RolePermissionsDto> {
    const role = await this.find(codigo);
    return { codigo, permisos: await this.permissions.ofRole(role.id) };
  }

  /** The role's permission set as it was at `asOf`: 404 when the role did not exist then. */
  async permissionsAsOf(codigo: string, rawAsOf: string): Promise<RolePermissionsDto> {
    const asOf = this.history.instant(rawAsOf);
    const [role] = await this.history.rows<{ id: number }>('roles', ['id'], { codigo }, asOf);
    if (!role) throw new DomainError('no_encontrado', `El rol ${codigo} no existía en ${displayInstant(asOf)}`);
    return { codigo, permisos: await this.permissions.ofRoleAsOf(Number(role.id), asOf) };
  }

  /**
   * Replaces the role's permission set (only the difference is written, so the history keeps
   * unchanged grants as one version). Refusals in order: 400 (an unknown code), 404, 403
   * `privilegio_insuficiente` (the caller's own role, or an added code the caller lacks), 409
   * `anti_lockout`, then 403 `privilegio_insuficiente` for a removal from a role whose holders
   * hold a code the caller lacks (before 412: a stale If-Match never hides it).
   */
  async replacePermissions(codigo: string, requested: readonly string[], callerId: number): Promise<RolePermissionsDto> {
    await this.antiLockout.lock();
    const wanted = await this.permissions.requireKnown(requested, 'permisos');
    const role = await this.find(codigo, true);
    await this.delegation.assertNotOwnRole(callerId, codigo);
    // a replacement that committed since the If-Match was checked is the 412 before anything is written
    this.versions.assertUnchangedSinceCheck(RoleEntity, PERMISSION_SET_VERSION, role.permisosVersion);
    const before = await this.permissions.ofRole(role.id);
    const after = wanted.map((p) => p.codigo);
    const added = wanted.filter((p) => !before.includes(p.codigo));
    await this.delegation.assertCanGrant(
      callerId,
      added.map((p) => p.codigo),
    );
    // read before the write, thrown after anti-lockout (a removal that would leave nobody able to
    // administer is 409 whoever asks)
    const holdersRefusal = before.some((c) => !after.includes(c)) ? await this.delegation.refusalOfHoldersOf(callerId, role, before) : undefined;

    // The set is written first and the role's version last, so that the 409 and the 403 below,
    // which need the set as written, come before the 412 of an If-Match that was stale from the
    // start; the anti-lockout lock taken above already serializes replacements of any set.
    const tx = this.txHost.tx;
    const removed = before.filter((c) => !after.includes(c));
    if (removed.length) {
      const removedIds = (await this.permissions.requireKnown(removed, 'permisos')).map((p) => p.id);
      await tx.delete(RolePermissionEntity, { roleId: role.id, permissionId: In(removedIds) });
    }
    if (added.length)
      await tx.insert(
        RolePermissionEntity,
        added.map((p) => ({ roleId: role.id, permissionId: p.id })),
      );
    if (removed.length) {
      await this.antiLockout.assertAdministratorRemains();
      // the refusal rolls back what was written above
      if (holdersRefusal) throw holdersRefusal;
    }
    // the set lives in role_permissions: the role's permisos_version stands for it (If-Match)
    await this.versions.update(RoleEntity, { id: role.id }, { updatedAt: this.clock.now() }, PERMISSION_SET_VERSION);

    await this.audit.record('rol.permisos_update', 'rol', codigo, { before, after });
    return { codigo, permisos: after };
  }

  /**
   * The role a user is being given, or undefined when it does not exist. Its row stays
   * share-locked until the transaction ends, so a concurrent DELETE of the role waits and then
   * sees the new holder (rol_en_uso) instead of leaving an active user on an inactive role.
   */
  async lockForAssignment(codigo: string): Promise<RoleEntity | undefined> {
    const role = await this.txHost.tx
      .getRepository(RoleEntity)
      .createQueryBuilder('r')
      .setLock('pessimistic_read')
      .where('r.codigo = :codigo', { codigo })
      .getOne();
    return role ?? undefined;
  }

  /** The role by codigo, 404 when missing; `forUpdate` locks its row until the transaction ends. */
  private async find(codigo: string, forUpdate = false): Promise<RoleEntity> {
    const qb = this.txHost.tx.getRepository(RoleEntity).createQueryBuilder('r').where('r.codigo = :codigo', { codigo });
    if (forUpdate) qb.setLock('pessimistic_write');
    const role = await qb.getOne();
    if (!role) throw new NotFoundError('El rol', codigo);
    return role;
  }
}
