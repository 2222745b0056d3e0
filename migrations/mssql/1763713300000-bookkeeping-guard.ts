import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The service's role may read the migrations' bookkeeping but not write it, as on PostgreSQL
 * (migrations/postgres/1763712600000-append-only.ts revokes INSERT, UPDATE, DELETE and TRUNCATE on
 * `migrations` from `medios_app`). On SQL Server the schema-wide grant of
 * 1763712600000-append-only.ts covered `dbo.migrations` too: a compromised service login could
 * have deleted a migration's row and made the next deployment run it again over the live schema.
 * DENY wins over the schema grant; TRUNCATE needs ALTER, which the role never gets, and is denied
 * explicitly too.
 */
export class BookkeepingGuard1763713300000 implements MigrationInterface {
  name = 'BookkeepingGuard1763713300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DENY INSERT, UPDATE, DELETE, ALTER ON OBJECT::dbo.migrations TO medios_app_role;`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`REVOKE INSERT, UPDATE, DELETE, ALTER ON OBJECT::dbo.migrations FROM medios_app_role;`);
  }
}
