// The rubro tree of the tree scenario, seeded with set-based SQL.
import { performance } from 'node:perf_hooks';

/** Level sizes of a tree of `nodes` nodes and exactly `depth` levels, widening towards the leaves. */
export function levelSizes(nodes, depth) {
  const weights = Array.from({ length: depth }, (_, i) => 1.6 ** i);
  const total = weights.reduce((a, b) => a + b, 0);
  const sizes = weights.map((w) => Math.max(1, Math.floor((w / total) * nodes)));
  sizes[depth - 1] += nodes - sizes.reduce((a, b) => a + b, 0);
  return sizes;
}

/**
 * `nodes` active rubros in `depth` levels (adjacency list, table rubros): every node of level L+1
 * hangs under a node of level L, round-robin, so every path reaches depth `depth`; names are
 * unique, so the sibling-name rule holds. One in ten leaves gets an aviso (tieneAvisos).
 */
export async function seedRubroTree(db, { nodes, depth }) {
  const t = performance.now();
  const sizes = levelSizes(nodes, depth);
  const { rows } = await db.query('SELECT coalesce(max(id), 0)::int AS max FROM rubros');
  const levels = { lvl: [], base: [], size: [], prevBase: [], prevSize: [] };
  let base = rows[0].max;
  sizes.forEach((size, i) => {
    levels.lvl.push(i + 1);
    levels.base.push(base);
    levels.size.push(size);
    levels.prevBase.push(i === 0 ? 0 : levels.base[i - 1]);
    levels.prevSize.push(i === 0 ? 1 : sizes[i - 1]);
    base += size;
  });
  await db.query(
    `INSERT INTO rubros (id, nombre, parent_id, activo)
     SELECT l.base + j,
            'Rubro ' || lpad((l.base + j)::text, 6, '0'),
            CASE WHEN l.lvl = 1 THEN NULL ELSE l.prev_base + ((j - 1) % l.prev_size) + 1 END,
            true
     FROM unnest($1::int[], $2::int[], $3::int[], $4::int[], $5::int[]) AS l(lvl, base, size, prev_base, prev_size)
     CROSS JOIN LATERAL generate_series(1, l.size) AS j`,
    [levels.lvl, levels.base, levels.size, levels.prevBase, levels.prevSize],
  );
  await db.query(`SELECT setval(pg_get_serial_sequence('rubros', 'id'), (SELECT max(id) FROM rubros))`);
  const leavesFrom = levels.base[depth - 1];
  await db.query('INSERT INTO avisos (rubro_id) SELECT id FROM rubros WHERE id > $1 AND id % 10 = 0', [leavesFrom]);
  await db.query('ANALYZE rubros');
  await db.query('ANALYZE avisos');
  return { nodes, sizes, ms: performance.now() - t };
}
