import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sessions: one row per refresh-token family (one sign-in and its rotations), keyed by the family
 * id that access tokens carry as `sid`. The per-request access check reads `ended_at` and
 * `expires_at` of the caller's session by primary key in the statement that reads the user, so an
 * access token dies with its session (docs/auth.md "Sessions").
 *
 * - `last_used_at`, `expires_at`, `client_ip`, `user_agent`: as of the last sign-in or refresh (a
 *   refresh slides the expiry like each new refresh token's); `refresh_tokens` keeps every
 *   token's own values.
 * - `ended_at` / `ended_reason`: set once, by logout, a revocation, reuse detection or an operation
 *   that revokes the user's refresh tokens; never cleared (reactivating a user revives nothing).
 *
 * Every existing family becomes a session (ended when its newest token is revoked), and
 * `refresh_tokens.family_id` then references it.
 */
export class Sessions1763712800000 implements MigrationInterface {
  name = 'Sessions1763712800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sessions (
        id              uuid PRIMARY KEY,
        user_id         int NOT NULL CONSTRAINT fk_sessions_user REFERENCES users (id),
        created_at      timestamptz NOT NULL DEFAULT now(),
        last_used_at    timestamptz NOT NULL,
        expires_at      timestamptz NOT NULL,
        ended_at        timestamptz NULL,
        ended_reason    varchar(32) NULL,
        client_ip       varchar(64) NULL,
        user_agent      varchar(512) NULL
      );
      CREATE INDEX ix_sessions_user_active ON sessions (user_id, last_used_at DESC) WHERE ended_at IS NULL;

      INSERT INTO sessions (id, user_id, created_at, last_used_at, expires_at, ended_at, ended_reason, client_ip, user_agent)
      SELECT family_id, user_id, first_created_at, created_at, expires_at, revoked_at, revoked_reason, first_ip, first_user_agent
        FROM (
          SELECT t.*,
                 ROW_NUMBER() OVER (PARTITION BY t.family_id ORDER BY t.created_at DESC, t.id DESC) AS newest,
                 MIN(t.created_at) OVER (PARTITION BY t.family_id) AS first_created_at,
                 FIRST_VALUE(t.client_ip) OVER (PARTITION BY t.family_id ORDER BY t.created_at, t.id
                   ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS first_ip,
                 FIRST_VALUE(t.user_agent) OVER (PARTITION BY t.family_id ORDER BY t.created_at, t.id
                   ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS first_user_agent
            FROM refresh_tokens t
        ) f
       WHERE f.newest = 1;

      ALTER TABLE refresh_tokens ADD CONSTRAINT fk_refresh_tokens_session FOREIGN KEY (family_id) REFERENCES sessions (id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE refresh_tokens DROP CONSTRAINT IF EXISTS fk_refresh_tokens_session;
      DROP TABLE IF EXISTS sessions;
    `);
  }
}
