import type { MigrationInterface } from 'typeorm';

/**
 * The service's role cannot choose an event's id on SQL Server already: the ids are IDENTITY
 * columns, and an explicit id needs SET IDENTITY_INSERT, that is ALTER on the table, which
 * 1763712600000-append-only.ts denies it. The PostgreSQL counterpart
 * (migrations/postgres/1763713400000-event-ids.ts) narrows its INSERT to the other columns; this
 * one keeps the two migration lists parallel and changes nothing.
 */
export class EventIds1763713400000 implements MigrationInterface {
  name = 'EventIds1763713400000';

  async up(): Promise<void> {}

  async down(): Promise<void> {}
}
