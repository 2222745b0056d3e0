import type { MigrationInterface, QueryRunner } from 'typeorm';
import { PERMISSION_SET_TABLES } from '../postgres/1763713500000-permission-set-versions.js';

/**
 * The permission sets' own versions on SQL Server: the counterpart of
 * migrations/postgres/1763713500000-permission-set-versions.ts. users and roles are
 * system-versioned: SQL Server propagates the ADD to their history tables itself.
 */
export class PermissionSetVersions1763713500000 implements MigrationInterface {
  name = 'PermissionSetVersions1763713500000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of PERMISSION_SET_TABLES) {
      await q.query(`ALTER TABLE dbo.${table} ADD permisos_version int NOT NULL CONSTRAINT df_${table}_permisos_version DEFAULT 1`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [...PERMISSION_SET_TABLES].reverse()) {
      await q.query(`ALTER TABLE dbo.${table} DROP CONSTRAINT df_${table}_permisos_version`);
      await q.query(`ALTER TABLE dbo.${table} DROP COLUMN permisos_version`);
    }
  }
}
