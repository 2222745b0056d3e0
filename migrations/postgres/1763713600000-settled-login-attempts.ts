import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `settled` on login_failures: a row is written when a sign-in attempt is admitted, before its
 * password is compared, and is `false` until the attempt ends as a failure (a success or a fault of
 * the service deletes it). The throttle refuses with 429 only on failures; attempts still in flight
 * that fill a limit make the next one wait a moment (503 with Retry-After) instead of locking a
 * correct password out for the window (docs/auth.md, "Throttling"). The rows already there are
 * failures.
 */
export class SettledLoginAttempts1763713600000 implements MigrationInterface {
  name = 'SettledLoginAttempts1763713600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE login_failures ADD COLUMN settled boolean NOT NULL DEFAULT true');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE login_failures DROP COLUMN settled');
  }
}
