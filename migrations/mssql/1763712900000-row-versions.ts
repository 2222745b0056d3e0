import type { MigrationInterface, QueryRunner } from 'typeorm';
import { VERSIONED_TABLES } from '../postgres/1763712900000-row-versions.js';

/**
 * Row versions on SQL Server: the counterpart of migrations/postgres/1763712900000-row-versions.ts,
 * an `int` the service increments (not `rowversion`, so both engines answer the same ETags and
 * compare the same way).
 *
 * users and roles are system-versioned: SQL Server propagates an ALTER TABLE … ADD of a temporal
 * table to its history table itself (a direct ALTER of the history table is refused while
 * SYSTEM_VERSIONING is ON), NOT NULL with a default included; existing history rows get 1.
 */
export class RowVersions1763712900000 implements MigrationInterface {
  name = 'RowVersions1763712900000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of VERSIONED_TABLES) {
      await q.query(`ALTER TABLE dbo.${table} ADD version int NOT NULL CONSTRAINT df_${table}_version DEFAULT 1`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [...VERSIONED_TABLES].reverse()) {
      await q.query(`ALTER TABLE dbo.${table} DROP CONSTRAINT df_${table}_version`);
      await q.query(`ALTER TABLE dbo.${table} DROP COLUMN version`);
    }
  }
}
