import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The counterpart of migrations/postgres/1763713600000-settled-login-attempts.ts on SQL Server. */
export class SettledLoginAttempts1763713600000 implements MigrationInterface {
  name = 'SettledLoginAttempts1763713600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE dbo.login_failures ADD settled bit NOT NULL CONSTRAINT df_login_failures_settled DEFAULT 1');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE dbo.login_failures DROP CONSTRAINT df_login_failures_settled');
    await q.query('ALTER TABLE dbo.login_failures DROP COLUMN settled');
  }
}
