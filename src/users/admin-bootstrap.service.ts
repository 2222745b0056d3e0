import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { AuditService } from '../audit/audit.service.js';
import { PartitionManagerService } from '../audit/maintenance/partition-manager.service.js';
import { PasswordHasher } from '../auth/password-hasher.js';
import { APP_CONFIG, type AppConfig } from '../common/config/index.js';
import { RequestContext } from '../common/context/request-context.js';
import { RoleEntity } from '../roles/role.entity.js';
import { PASSWORD_MAX_BYTES, PASSWORD_MIN_BYTES, passwordProblems } from './password-policy.js';
import { SYSTEM_USERNAME } from './system-user.js';
import { UserEntity } from './user.entity.js';
import { BOOTSTRAP_ADMIN } from '../common/config/config.module.js';

/** How a user that nobody signed in created came to be: `metadata.via` of its `usuario.create`. */
type SelfCreatedVia = 'first_start' | 'operator_cli';

interface SelfCreatedUser {
  username: string;
  passwordHash: string;
  nombre: string;
  apellido: string;
  email: string;
  rol: string;
  activo: boolean;
  mustChangePassword: boolean;
}

/**
 * First start: creates the user `admin` (role admin) when the users table is empty, with
 * ADMIN_PASSWORD or a random strong password printed once. A restart changes nothing.
 */
@Injectable()
export class AdminBootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Bootstrap');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly hasher: PasswordHasher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(BOOTSTRAP_ADMIN) private readonly bootstrapAdmin: boolean,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditService,
    private readonly context: RequestContext,
    private readonly partitions: PartitionManagerService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.bootstrapAdmin) await this.ensureAdmin();
  }

  /**
   * The `system` user, the actor of operator actions taken through the CLI (e.g. a password
   * reset). Created on first use: inactive, role `consulta`, with a random unusable password, so
   * it can never sign in and never counts for anti-lockout.
   */
  async ensureSystemUser(): Promise<number> {
    const users = this.dataSource.getRepository(UserEntity);
    const existing = await users.findOneBy({ username: SYSTEM_USERNAME });
    // an active one is an account someone made before the name was reserved: never its actor
    if (existing?.activo) {
      throw new Error(
        `the user "${SYSTEM_USERNAME}" (id ${existing.id}) is active, so it is not the CLI's actor (an inactive user that cannot sign in): deactivate it first`,
      );
    }
    if (existing) return existing.id;
    try {
      return await this.insertSelfCreated(
        {
          username: SYSTEM_USERNAME,
          passwordHash: await this.hasher.hash(randomBytes(32).toString('base64url')),
          nombre: 'Sistema',
          apellido: 'CLI',
          email: 'system@localhost',
          rol: 'consulta',
          activo: false,
          mustChangePassword: false,
        },
        'operator_cli',
      );
    } catch (err) {
      const raced = await users.findOneBy({ username: SYSTEM_USERNAME });
      if (raced) return raced.id;
      throw err;
    }
  }

  /**
   * Inserts a user that nobody signed in created, in one transaction with its `usuario.create`
   * event: the trail accounts for every user. The event's actor is the new user itself (the event
   * needs an actor, and there is none other), and `metadata.via` says how it came to be.
   *
   * The partition manager runs first: a database migrated months before its first start has no
   * partition of the event stores for the current month, and the event could not be written (the
   * start would fail). Later starts write nothing and skip it; the scheduled job keeps the months
   * ahead from then on.
   */
  private async insertSelfCreated(user: SelfCreatedUser, via: SelfCreatedVia): Promise<number> {
    const { rol, ...columns } = user;
    await this.partitions.run();
    return this.context.runAs(undefined, () =>
      this.txHost.withTransaction(async () => {
        const role = await this.txHost.tx.getRepository(RoleEntity).findOneByOrFail({ codigo: rol });
        const result = await this.txHost.tx.insert(UserEntity, { ...columns, roleId: role.id, permissionOverrides: { granted: [], denied: [] } });
        const id = Number(result.identifiers[0]?.id);
        this.context.setActor(id, user.username);
        await this.audit.record('usuario.create', 'usuario', id, {
          after: { username: user.username, nombre: user.nombre, apellido: user.apellido, email: user.email, rol },
          via,
        });
        return id;
      }),
    );
  }

  async ensureAdmin(): Promise<void> {
    const users = this.dataSource.getRepository(UserEntity);
    if ((await users.count()) > 0) return;
    // checked here, not with the rest of the configuration: it is read only now, on an empty
    // users table, and a stale value left in a deployment's secret must not stop later starts
    if (this.config.adminPassword !== undefined && passwordProblems(this.config.adminPassword, 'admin').length)
      throw new Error(
        `ADMIN_PASSWORD must meet the password policy to become the first administrator's password: ${PASSWORD_MIN_BYTES} to ${PASSWORD_MAX_BYTES} bytes of UTF-8 (bcrypt ignores what follows), not "admin", at least two of lowercase, uppercase, digits and other characters`,
      );
    // deploy/kubernetes/secret.example.yaml's value passes the policy; an operator who edits only
    // the database URL would get an administrator whose password is published
    if (this.config.adminPassword !== undefined && /^change-?me/i.test(this.config.adminPassword))
      throw new Error(
        "ADMIN_PASSWORD is still the example's placeholder (CHANGE-ME…): set a password of your own, or leave it out to have one generated",
      );
    const generated = !this.config.adminPassword;
    const password = this.config.adminPassword ?? randomBytes(18).toString('base64url');
    const passwordHash = await this.hasher.hash(password);
    try {
      await this.insertSelfCreated(
        {
          username: 'admin',
          passwordHash,
          nombre: 'Administrador',
          apellido: 'Sistema',
          email: 'admin@localhost',
          rol: 'admin',
          activo: true,
          mustChangePassword: generated,
        },
        'first_start',
      );
    } catch (err) {
      // another instance bootstrapped first
      if ((await users.count()) > 0) return;
      throw err;
    }
    if (generated) {
      // Printed once, on purpose, straight to the console rather than the structured log.
      process.stdout.write(
        `\n  First start: created user "admin" with password: ${password}\n  Sign in at POST /api/v1/auth/login and change it (PUT /api/v1/users/me/password).\n\n`,
      );
    } else {
      this.logger.log('First start: created user "admin" with the password from ADMIN_PASSWORD');
    }
  }
}
