import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import bcrypt from 'bcrypt';
import { APP_CONFIG, type AppConfig } from '../common/config/index.js';

/** bcrypt's input limit: longer passwords are rejected, never silently truncated. */
export const MAX_PASSWORD_BYTES = 72;

/** bcrypt hashing (async: runs on libuv's thread pool, so it does not block the event loop). */
@Injectable()
export class PasswordHasher implements OnModuleInit {
  private dummyHash: Promise<string> | undefined;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Prepares the dummy hash at boot, so even the first unknown username costs only one compare. */
  async onModuleInit(): Promise<void> {
    await this.dummy();
  }

  hash(password: string): Promise<string> {
    return bcrypt.hash(password, this.config.bcryptRounds);
  }

  verify(password: string, hash: string): Promise<boolean> {
    return bcrypt.compare(password, hash);
  }

  /**
   * Spends exactly one compare against a hash of the configured cost, so an unknown username
   * costs what a wrong password costs and response times do not reveal who exists.
   */
  async verifyAgainstDummy(password: string): Promise<void> {
    await bcrypt.compare(password, await this.dummy());
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= bcrypt.hash('dummy-password-for-timing', this.config.bcryptRounds);
    return this.dummyHash;
  }
}
