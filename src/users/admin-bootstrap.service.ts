import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { PasswordHasher } from '../auth/password-hasher.js';
import { APP_CONFIG, type AppConfig } from '../common/config/index.js';
import { RoleEntity } from '../roles/role.entity.js';
import { PASSWORD_MAX_BYTES, PASSWORD_MIN_BYTES, passwordProblems } from './password-policy.js';
import { UserEntity } from './user.entity.js';
import { BOOTSTRAP_ADMIN } from '../common/config/config.module.js';

export const SYSTEM_USERNAME = 'system';

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
    if (existing) return existing.id;
    const role = await this.dataSource.getRepository(RoleEntity).findOneByOrFail({ codigo: 'consulta' });
    try {
      await users.insert({
        username: SYSTEM_USERNAME,
        passwordHash: await this.hasher.hash(randomBytes(32).toString('base64url')),
        nombre: 'Sistema',
        apellido: 'CLI',
        email: 'system@localhost',
        roleId: role.id,
        activo: false,
        mustChangePassword: false,
        permissionOverrides: { granted: [], denied: [] },
      });
    } catch (err) {
      const raced = await users.findOneBy({ username: SYSTEM_USERNAME });
      if (raced) return raced.id;
      throw err;
    }
    return (await users.findOneByOrFail({ username: SYSTEM_USERNAME })).id;
  }

  async ensureAdmin(): Promise<void> {
    const users = this.dataSource.getRepository(UserEntity);
    if ((await users.count()) > 0) return;
    const role = await this.dataSource.getRepository(RoleEntity).findOneByOrFail({ codigo: 'admin' });
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
      await users.insert({
        username: 'admin',
        passwordHash,
        nombre: 'Administrador',
        apellido: 'Sistema',
        email: 'admin@localhost',
        roleId: role.id,
        activo: true,
        mustChangePassword: generated,
        permissionOverrides: { granted: [], denied: [] },
      });
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
