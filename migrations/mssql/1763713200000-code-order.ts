import type { MigrationInterface } from 'typeorm';

/**
 * Codes sort by code point on SQL Server already: their columns are binary since
 * 1763713100000-code-collation.ts. The PostgreSQL counterpart
 * (migrations/postgres/1763713200000-code-order.ts) gives them the "C" collation; this one keeps
 * the two migration lists parallel and changes nothing.
 */
export class CodeOrder1763713200000 implements MigrationInterface {
  name = 'CodeOrder1763713200000';

  async up(): Promise<void> {}

  async down(): Promise<void> {}
}
