import type { MigrationInterface } from 'typeorm';

/**
 * Retention here drops old partitions, which leaves the event stores' sequences as they are. The
 * SQL Server counterpart (migrations/mssql/1763713900000-purge-keeps-event-ids.ts) makes its
 * partition truncation keep the identity growing; this one keeps the two migration lists parallel
 * and changes nothing.
 */
export class PurgeKeepsEventIds1763713900000 implements MigrationInterface {
  name = 'PurgeKeepsEventIds1763713900000';

  async up(): Promise<void> {}

  async down(): Promise<void> {}
}
