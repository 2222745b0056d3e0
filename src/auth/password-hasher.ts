import { Inject, Injectable } from '@nestjs/common';
import bcrypt from 'bcrypt';
import { APP_CONFIG, type AppConfig } from '../common/config/index.js';

/** bcrypt's input limit: longer passwords are rejected, never silently truncated. */
export const MAX_PASSWORD_BYTES = 72;

/** bcrypt hashing (async: runs on libuv's thread pool, so it does not block the event loop). */
@Injectable()
export class PasswordHasher {
  private dummyHash: Promise<string> | undefined;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  hash(password: string): Promise<string> {
    return bcrypt.hash(password, this.config.bcryptRounds);
  }

  verify(password: string, hash: string): Promise<boolean> {
    return bcrypt.compare(password, hash);
  }

  /** Spends one compare against a fixed hash, so an unknown username costs what a wrong password costs. */
  async verifyAgainstDummy(password: string): Promise<void> {
    this.dummyHash ??= bcrypt.hash('dummy-password-for-timing', this.config.bcryptRounds);
    await bcrypt.compare(password, await this.dummyHash);
  }
}
