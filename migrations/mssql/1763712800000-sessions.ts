import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sessions on SQL Server: the counterpart of migrations/postgres/1763712800000-sessions.ts (same
 * names, columns and keys). One row per refresh-token family, keyed by the family id that access
 * tokens carry as `sid`; the filtered index is PostgreSQL's partial index. Every existing family
 * becomes a session (ended when its newest token is revoked), and `refresh_tokens.family_id` then
 * references it. The service's role reaches the new table through its schema-wide grant.
 */
export class Sessions1763712800000 implements MigrationInterface {
  name = 'Sessions1763712800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE dbo.sessions (
        id              uniqueidentifier NOT NULL,
        user_id         int NOT NULL CONSTRAINT fk_sessions_user REFERENCES dbo.users (id),
        created_at      datetime2(7) NOT NULL CONSTRAINT df_sessions_created_at DEFAULT SYSUTCDATETIME(),
        last_used_at    datetime2(7) NOT NULL,
        expires_at      datetime2(7) NOT NULL,
        ended_at        datetime2(7) NULL,
        ended_reason    nvarchar(32) NULL,
        client_ip       nvarchar(64) NULL,
        user_agent      nvarchar(512) NULL,
        CONSTRAINT pk_sessions PRIMARY KEY CLUSTERED (id)
      );
      CREATE INDEX ix_sessions_user_active ON dbo.sessions (user_id, last_used_at DESC) WHERE ended_at IS NULL;
    `);
    await q.query(`
      INSERT INTO dbo.sessions (id, user_id, created_at, last_used_at, expires_at, ended_at, ended_reason, client_ip, user_agent)
      SELECT family_id, user_id, first_created_at, created_at, expires_at, revoked_at, revoked_reason, first_ip, first_user_agent
        FROM (
          SELECT t.family_id, t.user_id, t.created_at, t.expires_at, t.revoked_at, t.revoked_reason,
                 ROW_NUMBER() OVER (PARTITION BY t.family_id ORDER BY t.created_at DESC, t.id DESC) AS newest,
                 MIN(t.created_at) OVER (PARTITION BY t.family_id) AS first_created_at,
                 FIRST_VALUE(t.client_ip) OVER (PARTITION BY t.family_id ORDER BY t.created_at, t.id
                   ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS first_ip,
                 FIRST_VALUE(t.user_agent) OVER (PARTITION BY t.family_id ORDER BY t.created_at, t.id
                   ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS first_user_agent
            FROM dbo.refresh_tokens t
        ) f
       WHERE f.newest = 1;
    `);
    await q.query(`
      ALTER TABLE dbo.refresh_tokens ADD CONSTRAINT fk_refresh_tokens_session FOREIGN KEY (family_id) REFERENCES dbo.sessions (id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      IF OBJECT_ID(N'dbo.fk_refresh_tokens_session', N'F') IS NOT NULL
        ALTER TABLE dbo.refresh_tokens DROP CONSTRAINT fk_refresh_tokens_session;
      DROP TABLE IF EXISTS dbo.sessions;
    `);
  }
}
