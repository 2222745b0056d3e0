import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The permission this migration added, frozen as it inserted it. */
const ROLES_READ_SEED = {
  codigo: 'administracion:roles:ver',
  descripcion: 'Ver roles, sus permisos y el catálogo de permisos',
  roles: ['admin', 'supervisor', 'auditor'],
};

/**
 * SQL Server counterpart of migrations/postgres/1763712950000-console-lists.ts: the permission
 * `administracion:roles:ver` (admin, supervisor, auditor) and the audit index on `action`,
 * aligned with the partition scheme like every audit_events index (the retention job's
 * TRUNCATE … WITH (PARTITIONS …) requires it).
 */
export class ConsoleLists1763712950000 implements MigrationInterface {
  name = 'ConsoleLists1763712950000';

  async up(q: QueryRunner): Promise<void> {
    const p = ROLES_READ_SEED;
    await q.query(`INSERT INTO dbo.permissions (codigo, descripcion) VALUES (@0, @1)`, [p.codigo, p.descripcion]);
    for (const role of p.roles) {
      await q.query(
        `INSERT INTO dbo.role_permissions (role_id, permission_id)
         SELECT r.id, p.id FROM dbo.roles r CROSS JOIN dbo.permissions p WHERE p.codigo = @0 AND r.codigo = @1`,
        [p.codigo, role],
      );
    }
    await q.query(`CREATE INDEX ix_audit_events_action ON dbo.audit_events (action, occurred_at DESC, id DESC) ON ps_events_monthly (occurred_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS ix_audit_events_action ON dbo.audit_events`);
    await q.query(`DELETE FROM dbo.role_permissions WHERE permission_id IN (SELECT id FROM dbo.permissions WHERE codigo = @0)`, [
      ROLES_READ_SEED.codigo,
    ]);
    await q.query(`DELETE FROM dbo.permissions WHERE codigo = @0`, [ROLES_READ_SEED.codigo]);
  }
}
