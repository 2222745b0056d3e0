import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `users.password_hash` takes the binary collation Latin1_General_100_BIN2, as `token_hash` of
 * refresh_tokens always had. A sign-in claims the user's row only while the bcrypt hash it just
 * verified is still the stored one (`password_hash = @p` in its UPDATE); under the database's
 * default (case-insensitive) collation that `=` ignored case and trailing spaces, so a hash that
 * differed from the verified one only in case passed for it. PostgreSQL's text `=` is exact
 * (migrations/postgres/1763713800000-password-hash-collation.ts, a no-op).
 *
 * No index or constraint uses the column. users is system-versioned: the engine propagates
 * ALTER COLUMN to users_history.
 */
export class PasswordHashCollation1763713800000 implements MigrationInterface {
  name = 'PasswordHashCollation1763713800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dbo.users ALTER COLUMN password_hash nvarchar(100) COLLATE Latin1_General_100_BIN2 NOT NULL;`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dbo.users ALTER COLUMN password_hash nvarchar(100) NOT NULL;`);
  }
}
