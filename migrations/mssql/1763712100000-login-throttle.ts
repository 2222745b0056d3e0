import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Login throttling on SQL Server: the counterpart of migrations/postgres/1763712100000-login-throttle.ts
 * (same table, columns, constraint and index names). `subject` is a hex SHA-256 of the username
 * (with `@<client IP>` for the per-IP count) or the client IP, written by the service; hex keys
 * compare the same under any collation, so usernames stay case-sensitive here too.
 */
export class LoginThrottle1763712100000 implements MigrationInterface {
  name = 'LoginThrottle1763712100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE dbo.login_failures (
        id           bigint IDENTITY(1, 1) NOT NULL,
        scope        nvarchar(8)   NOT NULL,
        subject      nvarchar(256) NOT NULL,
        occurred_at  datetime2(7)  NOT NULL,
        CONSTRAINT pk_login_failures PRIMARY KEY CLUSTERED (id),
        CONSTRAINT ck_login_failures_scope CHECK (scope IN (N'user', N'ip'))
      );
      -- the limit check: the recent rows of one username or one IP, newest first
      CREATE INDEX ix_login_failures_subject ON dbo.login_failures (scope, subject, occurred_at);
      -- the clean-up of rows older than the window
      CREATE INDEX ix_login_failures_occurred ON dbo.login_failures (occurred_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS dbo.login_failures');
  }
}
