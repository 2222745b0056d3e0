import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Login throttling (docs/auth.md "Throttling"): one row per admitted sign-in attempt and scope,
 * shared by every instance of the service. `scope` is `user` (subject: the SHA-256 of the exact
 * username in hex, alone for its count from any IP, or followed by `@<client IP>` for its count
 * from one IP) or `ip` (subject = the client IP). A row is written when an attempt is admitted,
 * kept when the attempt fails, and deleted when it succeeds (a success also clears the (username,
 * IP) rows), so the rows inside the window are the recent failures. Rows older than LOGIN_WINDOW_SECONDS are
 * deleted by the service itself at every attempt (see LoginThrottleService); nothing else
 * reads them.
 */
export class LoginThrottle1763712100000 implements MigrationInterface {
  name = 'LoginThrottle1763712100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      -- bigserial: bigint IDENTITY on SQL Server; timestamptz: datetime2 (UTC) on SQL Server
      CREATE TABLE login_failures (
        id           bigserial PRIMARY KEY,
        scope        varchar(8)   NOT NULL,
        subject      varchar(256) NOT NULL,
        occurred_at  timestamptz  NOT NULL,
        CONSTRAINT ck_login_failures_scope CHECK (scope IN ('user', 'ip'))
      );
      -- the limit check: the recent rows of one username or one IP, newest first
      CREATE INDEX ix_login_failures_subject ON login_failures (scope, subject, occurred_at);
      -- the clean-up of rows older than the window
      CREATE INDEX ix_login_failures_occurred ON login_failures (occurred_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS login_failures');
  }
}
