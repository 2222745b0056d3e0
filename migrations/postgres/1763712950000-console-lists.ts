import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The permission this migration added, frozen as it inserted it. */
const ROLES_READ_SEED = {
  codigo: 'administracion:roles:ver',
  descripcion: 'Ver roles, sus permisos y el catálogo de permisos',
  roles: ['admin', 'supervisor', 'auditor'],
};

/**
 * What the admin console's lists need:
 * - `administracion:roles:ver`, granted to admin, supervisor and auditor, so a user manager can
 *   read roles (a role picker) without being able to change them;
 * - an index for the audit trail filtered by `action`, shaped like the other audit filters:
 *   the filter first, then (occurred_at DESC, id DESC), so a page is one ordered index walk.
 */
export class ConsoleLists1763712950000 implements MigrationInterface {
  name = 'ConsoleLists1763712950000';

  async up(q: QueryRunner): Promise<void> {
    const p = ROLES_READ_SEED;
    await q.query(`INSERT INTO permissions (codigo, descripcion) VALUES ($1, $2)`, [p.codigo, p.descripcion]);
    await q.query(
      `INSERT INTO role_permissions (role_id, permission_id)
       SELECT r.id, p.id FROM roles r, permissions p WHERE p.codigo = $1 AND r.codigo = ANY($2::text[])`,
      [p.codigo, p.roles],
    );
    await q.query(`CREATE INDEX ix_audit_events_action ON audit_events (action, occurred_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS ix_audit_events_action`);
    await q.query(`DELETE FROM role_permissions WHERE permission_id IN (SELECT id FROM permissions WHERE codigo = $1)`, [ROLES_READ_SEED.codigo]);
    await q.query(`DELETE FROM permissions WHERE codigo = $1`, [ROLES_READ_SEED.codigo]);
  }
}
