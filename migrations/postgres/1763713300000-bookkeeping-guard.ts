import type { MigrationInterface } from 'typeorm';

/**
 * The service's role may not write the migrations' bookkeeping: on PostgreSQL it never could
 * (1763712600000-append-only.ts revokes it). The SQL Server counterpart
 * (migrations/mssql/1763713300000-bookkeeping-guard.ts) denies what its schema-wide grant had
 * allowed; this one keeps the two migration lists parallel and changes nothing.
 */
export class BookkeepingGuard1763713300000 implements MigrationInterface {
  name = 'BookkeepingGuard1763713300000';

  async up(): Promise<void> {}

  async down(): Promise<void> {}
}
