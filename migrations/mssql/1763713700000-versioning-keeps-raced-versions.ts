import type { MigrationInterface } from 'typeorm';

/**
 * The PostgreSQL counterpart (migrations/postgres/1763713700000-versioning-keeps-raced-versions.ts)
 * makes its versioning trigger keep a version that a transaction started later committed while an
 * earlier one waited for the row. SQL Server's temporal tables never drop it: they refuse the
 * earlier transaction's update (error 13535), which the service answers as a conflict to send again
 * (503). This one keeps the two migration lists parallel and changes nothing.
 */
export class VersioningKeepsRacedVersions1763713700000 implements MigrationInterface {
  name = 'VersioningKeepsRacedVersions1763713700000';

  async up(): Promise<void> {}

  async down(): Promise<void> {}
}
