import type { MigrationInterface } from 'typeorm';

/**
 * Codes (`codigo`, `ingresos_brutos.provincia`) compare case-sensitively on SQL Server as they
 * always have here: PostgreSQL's text comparison under a deterministic collation already is. The
 * SQL Server counterpart (migrations/mssql/1763713100000-code-collation.ts) gives those columns a
 * binary collation; this one keeps the two migration lists parallel and changes nothing.
 */
export class CodeCollation1763713100000 implements MigrationInterface {
  name = 'CodeCollation1763713100000';

  async up(): Promise<void> {}

  async down(): Promise<void> {}
}
