// Set-based seeding straight into the bench database.
import bcrypt from 'bcrypt';

export const AUDIT_SPAN_DAYS = 150;
const DAY_MS = 86_400_000;

/** `count` users that sign in during the login storm (one bcrypt hash of the service's cost, shared). */
export async function seedLoginUsers(db, { count, password, rounds }) {
  const hash = await bcrypt.hash(password, rounds);
  const { rows } = await db.query(
    `INSERT INTO users (username, password_hash, nombre, apellido, email, role_id, activo, must_change_password)
     SELECT 'bench_user_' || lpad(g::text, 3, '0'), $1, 'Bench', 'User ' || g, 'bench' || g || '@example.com',
            (SELECT id FROM roles WHERE codigo = 'supervisor'), true, false
     FROM generate_series(1, $2::int) AS g
     RETURNING id, username`,
    [hash, count],
  );
  return rows.map((r) => ({ id: r.id, username: r.username, password }));
}

/**
 * Replaces the audit trail with `rows` events spread evenly over the last AUDIT_SPAN_DAYS days
 * (newest first = lowest i), with actors cycling over `actorIds`, four target types and 50 target
 * ids per type, so every filter used by the bench selects ≥ 50 rows already at 10 thousand rows.
 * Returns what the filtered scenarios query.
 */
export async function seedAudit(db, { rows, actorIds, now = new Date(), batch = 1_000_000, log = () => {} }) {
  const spanMs = AUDIT_SPAN_DAYS * DAY_MS;
  const stepSeconds = spanMs / 1000 / rows;
  const newest = new Date(now.getTime() - 60_000);
  const oldest = new Date(newest.getTime() - spanMs);
  await db.query('TRUNCATE audit_events');
  await db.query('SELECT ensure_monthly_partitions($1, $2::date, $3::date)', [
    'audit_events',
    oldest.toISOString().slice(0, 10),
    newest.toISOString().slice(0, 10),
  ]);
  for (let from = 0; from < rows; from += batch) {
    const to = Math.min(rows, from + batch) - 1;
    await db.query(
      `INSERT INTO audit_events (occurred_at, actor_user_id, actor_role_id, ip, user_agent, correlation_id, action, target_type, target_id, metadata)
       SELECT $1::timestamptz - make_interval(secs => i * $2::float8),
              ($3::int[])[1 + i % cardinality($3::int[])],
              NULL,
              '10.0.' || (i % 250) || '.' || (i % 200),
              'bench-seed/1.0',
              gen_random_uuid(),
              (ARRAY['medio.update', 'seccion.update', 'rubro.move', 'usuario.update'])[1 + i % 4],
              (ARRAY['medio', 'seccion', 'rubro', 'usuario'])[1 + i % 4],
              ((i / 4) % 50)::text,
              jsonb_build_object('before', jsonb_build_object('nombre', 'Nombre ' || i), 'after', jsonb_build_object('nombre', 'Nombre ' || (i + 1)))
       FROM generate_series($4::bigint, $5::bigint) AS g(i)`,
      [newest.toISOString(), stepSeconds, actorIds, from, to],
    );
    log(`audit rows: ${to + 1} / ${rows}`);
  }
  await db.query('VACUUM (ANALYZE) audit_events');
  const middle = newest.getTime() - spanMs / 2;
  return {
    actorUserId: actorIds[3 % actorIds.length],
    target: { targetType: 'medio', targetId: '7' },
    // a window of 1 % of the span in its middle: 100 events at 10 thousand rows
    window: { from: new Date(middle - spanMs / 100).toISOString(), to: new Date(middle).toISOString() },
  };
}
