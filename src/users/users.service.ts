import { Inject, Injectable } from '@nestjs/common';
import { displayInstant } from '../audit/utc-instant.js';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { In } from 'typeorm';
import { Activation } from '../common/activation/activation.js';
import { AuditService } from '../audit/audit.service.js';
import { DelegationPolicy } from '../auth/delegation.policy.js';
import { PasswordHasher } from '../auth/password-hasher.js';
import { RefreshTokensService } from '../auth/refresh-tokens.service.js';
import { Clock } from '../common/context/clock.js';
import { DomainError, NotFoundError, ValidationFailedError } from '../common/errors/domain-error.js';
import { type Page, pageOf } from '../common/pagination/page.js';
import { containsAny, containsPattern } from '../common/pagination/search.js';
import { applySort } from '../common/pagination/sort.js';
import { SQL_DIALECT, type SqlDialect } from '../database/dialects/index.js';
import { AntiLockoutService } from '../roles/anti-lockout.service.js';
import { PermissionsService } from '../roles/permissions.service.js';
import { PointInTimeService } from '../roles/point-in-time.service.js';
import { RoleEntity } from '../roles/role.entity.js';
import { RolesService } from '../roles/roles.service.js';
import { type CreateUserDto, type UpdateUserDto, USER_SORT_FIELDS, UsuarioDto, type UsersQueryDto } from './dto/user.dto.js';
import { PasswordPolicy } from './password-policy.service.js';
import { SYSTEM_USERNAME } from './system-user.js';
import { UserEntity } from './user.entity.js';
import { ReplicaReads } from '../database/replica-reads.js';
import { VersionedWrites } from '../common/versioning/versioned-writes.js';

/** The columns of a user version read from the history (never the password hash). */
const VERSION_COLUMNS = [
  'id',
  'username',
  'nombre',
  'apellido',
  'email',
  'role_id',
  'activo',
  'must_change_password',
  'ultimo_login',
  'created_at',
  'updated_at',
];

interface UserVersion {
  id: number;
  username: string;
  nombre: string;
  apellido: string;
  email: string;
  role_id: number;
  activo: boolean;
  must_change_password: boolean;
  ultimo_login: Date | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * Users: create, read, update and (de)activation, audited; the delegation rule on every change
 * (DelegationPolicy, docs/permissions.md); anti-lockout on the operations that can remove the last
 * administrator; refresh tokens revoked on update and deactivation. Passwords exist here only as
 * bcrypt hashes.
 */
@Injectable()
export class UsersService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly reads: ReplicaReads,
    private readonly versions: VersionedWrites,
    private readonly audit: AuditService,
    private readonly activation: Activation,
    private readonly roles: RolesService,
    private readonly antiLockout: AntiLockoutService,
    private readonly permissions: PermissionsService,
    private readonly delegation: DelegationPolicy,
    private readonly passwordPolicy: PasswordPolicy,
    private readonly history: PointInTimeService,
    private readonly hasher: PasswordHasher,
    private readonly refreshTokens: RefreshTokensService,
    private readonly clock: Clock,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  async list(query: UsersQueryDto): Promise<Page<UsuarioDto>> {
    const { page, pageSize, skip, take } = pageOf(query);
    const [rows, total] = await this.reads.read((db) => {
      const qb = db.getRepository(UserEntity).createQueryBuilder('u');
      if (query.search) {
        qb.andWhere(containsAny(['u.username', 'u.nombre', 'u.apellido', 'u.email']), { pattern: containsPattern(query.search) });
      }
      if (query.rol !== undefined) qb.andWhere('u.roleId IN (SELECT r.id FROM roles r WHERE r.codigo = :rol)', { rol: query.rol });
      if (query.activo !== undefined) qb.andWhere('u.activo = :activo', { activo: query.activo });
      return applySort(qb, 'u', query.sort, USER_SORT_FIELDS, [{ field: 'username', direction: 'ASC' }])
        .skip(skip)
        .take(take)
        .getManyAndCount();
    });
    const codes = await this.roleCodes(rows.map((u) => u.roleId));
    return { items: rows.map((u) => UsuarioDto.of(u, codes.get(u.roleId) ?? '')), total, page, pageSize };
  }

  async get(id: number): Promise<UsuarioDto> {
    const user = await this.find(id);
    return UsuarioDto.of(user, await this.roleCode(user.roleId));
  }

  /** The user as it was at `asOf`, from the system-versioned history; 404 when it did not exist then. */
  async getAsOf(id: number, rawAsOf: string): Promise<UsuarioDto> {
    const asOf = this.history.instant(rawAsOf);
    const [version] = await this.history.rows<UserVersion>('users', VERSION_COLUMNS, { id }, asOf);
    if (!version) throw new DomainError('no_encontrado', `El usuario ${id} no existía en ${displayInstant(asOf)}`);
    const [role] = await this.history.rows<{ codigo: string }>('roles', ['codigo'], { id: Number(version.role_id) }, asOf);
    return UsuarioDto.of(
      {
        id: Number(version.id),
        username: version.username,
        nombre: version.nombre,
        apellido: version.apellido,
        email: version.email,
        activo: version.activo,
        mustChangePassword: version.must_change_password,
        ultimoLogin: version.ultimo_login,
        createdAt: version.created_at,
        updatedAt: version.updated_at,
      },
      role?.codigo ?? (await this.roleCode(Number(version.role_id))),
    );
  }

  /**
   * Order of refusals: 400 (the password policy, an unknown or inactive role), 403
   * `privilegio_insuficiente` (a role with a permission the caller lacks), 409 `duplicado`. The
   * checks run once before the slow hash, so a refused request costs no hash, and again inside the
   * transaction, which decides; the hash itself runs with no connection, transaction or lock held.
   */
  async create(dto: CreateUserDto, callerId: number): Promise<UsuarioDto> {
    await this.passwordPolicy.assertAcceptable(dto.password, dto);
    await this.checkCreate(dto, callerId);
    const passwordHash = await this.hasher.hash(dto.password);
    return this.txHost.withTransaction(async () => {
      const role = await this.checkCreate(dto, callerId);
      const now = this.clock.now();
      const user = {
        username: dto.username,
        passwordHash,
        nombre: dto.nombre,
        apellido: dto.apellido,
        email: dto.email,
        roleId: role.id,
        activo: true,
        mustChangePassword: true,
        ultimoLogin: null,
        permissionOverrides: { granted: [], denied: [] },
        createdAt: now,
        updatedAt: now,
      };
      let id: number;
      try {
        const result = await this.txHost.tx.insert(UserEntity, user);
        id = Number(result.identifiers[0]?.id);
      } catch (err) {
        // uq_users_username is the guarantee when creates race
        if (this.dialect.isUniqueViolation(err)) throw new DomainError('duplicado', duplicateUsername(dto.username));
        throw err;
      }
      await this.audit.record('usuario.create', 'usuario', id, {
        after: { username: dto.username, nombre: dto.nombre, apellido: dto.apellido, email: dto.email, rol: role.codigo },
      });
      const { passwordHash: _hash, ...shown } = user;
      return UsuarioDto.of({ ...shown, id }, role.codigo);
    });
  }

  /**
   * Replaces the editable fields. Refusals in order: 400 (an unknown or inactive role), 404, 403
   * `privilegio_insuficiente` (the user holds a permission the caller lacks, or the new role does),
   * 409 `anti_lockout` (the caller's own role, or a change that removes the last administrator).
   * Revokes the user's refresh tokens.
   */
  async update(id: number, dto: UpdateUserDto, callerId: number): Promise<UsuarioDto> {
    await this.antiLockout.lock();
    const requested = await this.roles.lockForAssignment(dto.rol);
    if (!requested) throw unknownRole(dto.rol);
    const user = await this.find(id, true);
    const currentRol = await this.roleCode(user.roleId);
    const changesRole = requested.id !== user.roleId;
    if (changesRole && !requested.activo) throw inactiveRole(dto.rol);
    // changing one's own role stays anti-lockout, whatever the role holds
    if (changesRole && id === callerId) throw new DomainError('anti_lockout', 'No puede cambiar su propio rol');
    await this.delegation.assertDelegable(callerId, { target: id, grants: changesRole ? await this.permissions.ofRole(requested.id) : [] });

    const now = this.clock.now();
    const after = { nombre: dto.nombre, apellido: dto.apellido, email: dto.email };
    await this.versions.update(UserEntity, { id }, { ...after, roleId: requested.id, updatedAt: now });
    await this.refreshTokens.revokeAllForUser(id, 'user_updated');
    if (changesRole) await this.antiLockout.assertAdministratorRemains();
    await this.audit.record('usuario.update', 'usuario', id, {
      before: { nombre: user.nombre, apellido: user.apellido, email: user.email, rol: currentRol },
      after: { ...after, rol: dto.rol },
    });
    return UsuarioDto.of({ ...user, ...after, updatedAt: now }, dto.rol);
  }

  /**
   * Nobody deactivates themselves (409 `anti_lockout`), a user holding a permission the caller
   * lacks (403 `privilegio_insuficiente`) or the last administrator (409). Revokes the user's
   * refresh tokens; a repeat is a no-op.
   */
  async deactivate(id: number, callerId: number): Promise<UsuarioDto> {
    if (id === callerId) throw new DomainError('anti_lockout', 'No puede desactivarse a sí mismo');
    await this.antiLockout.lock();
    const user = await this.find(id, true);
    await this.delegation.assertCanActOn(callerId, id);
    const rol = await this.roleCode(user.roleId);
    const changed = await this.activation.set({
      entity: UserEntity,
      row: user,
      activo: false,
      resource: 'usuario',
      afterWrite: async () => {
        await this.refreshTokens.revokeAllForUser(id, 'user_deactivated');
        await this.antiLockout.assertAdministratorRemains();
      },
    });
    return UsuarioDto.of(changed, rol);
  }

  /**
   * Refused for a user holding a permission the caller lacks (403). A user whose role was
   * deactivated meanwhile is reactivated too: the inactive role contributes no permissions, so the
   * user holds only what its overrides grant until the role is reactivated or another one given.
   * A repeat is a no-op.
   */
  async reactivate(id: number, callerId: number): Promise<UsuarioDto> {
    const user = await this.find(id, true);
    await this.delegation.assertCanActOn(callerId, id);
    const rol = await this.roleCode(user.roleId);
    return UsuarioDto.of(await this.activation.set({ entity: UserEntity, row: user, activo: true, resource: 'usuario' }), rol);
  }

  /** The user by id, 404 when missing; `forUpdate` locks its row until the transaction ends. */
  async find(id: number, forUpdate = false): Promise<UserEntity> {
    const qb = this.txHost.tx.getRepository(UserEntity).createQueryBuilder('u').where('u.id = :id', { id });
    if (forUpdate) qb.setLock('pessimistic_write');
    const user = await qb.getOne();
    if (!user) throw new NotFoundError('El usuario', id);
    return user;
  }

  async roleCode(roleId: number): Promise<string> {
    return (await this.roleCodes([roleId])).get(roleId) ?? '';
  }

  private async roleCodes(roleIds: number[]): Promise<Map<number, string>> {
    if (!roleIds.length) return new Map();
    const roles = await this.txHost.tx.findBy(RoleEntity, { id: In([...new Set(roleIds)]) });
    return new Map(roles.map((r) => [r.id, r.codigo]));
  }

  /**
   * The create's refusals short of the insert: 400 (unknown or inactive role), 403 (the role holds
   * a permission the caller lacks), 409 (the username is taken). Inside the transaction the role's
   * row stays share-locked (RolesService.lockForAssignment); before it, nothing is locked.
   */
  private async checkCreate(dto: CreateUserDto, callerId: number): Promise<RoleEntity> {
    const role = this.txHost.isTransactionActive()
      ? await this.roles.lockForAssignment(dto.rol)
      : ((await this.txHost.tx.findOneBy(RoleEntity, { codigo: dto.rol })) ?? undefined);
    if (!role) throw unknownRole(dto.rol);
    if (!role.activo) throw inactiveRole(dto.rol);
    await this.delegation.assertCanGrant(callerId, await this.permissions.ofRole(role.id));
    // the CLI's actor is created on first use: its name is taken before it exists
    if (dto.username === SYSTEM_USERNAME || (await this.txHost.tx.existsBy(UserEntity, { username: dto.username })))
      throw new DomainError('duplicado', duplicateUsername(dto.username));
    return role;
  }
}

function duplicateUsername(username: string): string {
  return `Ya existe un usuario ${username}`;
}

function unknownRole(codigo: string): ValidationFailedError {
  return new ValidationFailedError([{ field: 'rol', message: `El rol ${codigo} no existe` }], `El rol ${codigo} no existe`);
}

function inactiveRole(codigo: string): ValidationFailedError {
  return new ValidationFailedError([{ field: 'rol', message: `El rol ${codigo} está inactivo` }], `El rol ${codigo} está inactivo`);
}
