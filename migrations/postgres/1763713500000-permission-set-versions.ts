import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The tables whose row also carries a permission set that its own PUT replaces. */
export const PERMISSION_SET_TABLES = ['users', 'roles'] as const;

/**
 * A version of each permission set of its own: `permisos_version` on users (the overrides) and on
 * roles (the role's set), compared by If-Match on `PUT …/permisos[/overrides]`. The row's
 * `version` moves with every write of the row — a sign-in writes `ultimo_login`, a rename the
 * role's `nombre` — none of which changes the set, so holding the set's tag to it refused edits of
 * the set that nobody had overtaken (docs/api.md, "ETags and lost updates").
 *
 * Both tables are versioned with history tables whose rows the trigger copies by position: each
 * history table gets the column at the same (last) position, in the same migration.
 */
export class PermissionSetVersions1763713500000 implements MigrationInterface {
  name = 'PermissionSetVersions1763713500000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of PERMISSION_SET_TABLES) {
      await q.query(`ALTER TABLE ${table} ADD COLUMN permisos_version int NOT NULL DEFAULT 1`);
      await q.query(`ALTER TABLE ${table}_history ADD COLUMN permisos_version int NOT NULL DEFAULT 1`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [...PERMISSION_SET_TABLES].reverse()) {
      await q.query(`ALTER TABLE ${table}_history DROP COLUMN permisos_version`);
      await q.query(`ALTER TABLE ${table} DROP COLUMN permisos_version`);
    }
  }
}
