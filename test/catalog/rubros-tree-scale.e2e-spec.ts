import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { TestApp } from '../support/test-app.js';
import type { RubroNode } from './catalog-fixtures.js';

const ROOTS = 10;
const PER_LEVEL = 1110; // levels 2..10
const LEVELS = 10;
const TOTAL = ROOTS + (LEVELS - 1) * PER_LEVEL; // 10,000

/**
 * Seeds a 10,000-rubro tree of depth 10 with set-based SQL (one INSERT … SELECT per level, not
 * 10,000 HTTP calls): 10 roots, then 1,110 rubros on each of levels 2..10, spread over the level
 * above. Names are `L<level>-<n>`, unique among siblings.
 */
async function seedBigTree(t: TestApp): Promise<void> {
  await t.query(`INSERT INTO rubros (nombre, parent_id, activo) SELECT 'L1-' || g, NULL, true FROM generate_series(0, $1) AS g`, [ROOTS - 1]);
  for (let level = 2; level <= LEVELS; level++) {
    await t.query(
      `INSERT INTO rubros (nombre, parent_id, activo)
       SELECT 'L' || $1::int || '-' || g, p.id, true
         FROM generate_series(0, $2) AS g
         JOIN (SELECT id, row_number() OVER (ORDER BY id) - 1 AS rn, count(*) OVER () AS n
                 FROM rubros WHERE nombre LIKE $3) p ON p.rn = g % p.n`,
      [level, PER_LEVEL - 1, `L${level - 1}-%`],
    );
  }
}

function walk(nodes: RubroNode[], visit: (n: RubroNode, parentLevel: number) => void, parentLevel = 0): void {
  for (const n of nodes) {
    visit(n, parentLevel);
    walk(n.hijos, visit, n.nivel);
  }
}

describe('rubro tree at scale', () => {
  let t: TestApp, admin: string;
  beforeAll(async () => {
    ({ t, admin } = await TestApp.withAdmin());
    await seedBigTree(t);
    // a few leaves of the deepest level carry avisos
    await t.query(`INSERT INTO avisos (rubro_id) SELECT id FROM rubros WHERE nombre IN ('L10-0', 'L10-1', 'L10-2')`);
    await t.query('ANALYZE rubros'); // statistics, as a live table would have them
  });
  afterAll(() => t.close());

  it('has seeded 10,000 rubros of depth 10', async () => {
    const [row] = await t.query<{ n: string | number }>('SELECT count(*) AS n FROM rubros');
    expect(Number(row!.n)).toBe(TOTAL);
  });

  it('reads the 10,000-rubro tree (depth 10) in ONE query', async () => {
    const queries: string[] = [];
    const spy = jest.spyOn(t.db.logger, 'logQuery').mockImplementation((query: string) => {
      queries.push(query);
    });
    let res;
    const started = Date.now();
    try {
      res = await t.get('/api/v1/admin/rubros/tree', { token: admin });
    } finally {
      spy.mockRestore();
    }
    const elapsedMs = Date.now() - started;
    expect(res.status).toBe(200);

    // every query of the request: the guard's permission lookup of the caller (users…) and the tree
    const treeQueries = queries.filter((q) => /\brubros\b/.test(q));
    const otherQueries = queries.filter((q) => !/\brubros\b/.test(q));
    expect(treeQueries).toHaveLength(1);
    expect(otherQueries.every((q) => /\busers\b/.test(q))).toBe(true);
    process.stdout.write(
      `\n[rubros tree] ${TOTAL} rubros, depth ${LEVELS}: ${treeQueries.length} tree query (${queries.length} queries in the request, ${otherQueries.length} of them the caller's permission lookup), ${elapsedMs} ms\n`,
    );

    let count = 0;
    let deepest = 0;
    let withAvisos = 0;
    let misleveled = 0;
    walk(res.body as RubroNode[], (n, parentLevel) => {
      count++;
      deepest = Math.max(deepest, n.nivel);
      if (n.tieneAvisos) withAvisos++;
      if (n.nivel !== parentLevel + 1) misleveled++;
    });
    expect(count).toBe(TOTAL);
    expect(misleveled).toBe(0);
    expect(deepest).toBe(LEVELS);
    expect(withAvisos).toBe(3);
    expect((res.body as RubroNode[]).map((r) => r.nombre)).toEqual(['L1-0', 'L1-1', 'L1-2', 'L1-3', 'L1-4', 'L1-5', 'L1-6', 'L1-7', 'L1-8', 'L1-9']);
  });

  it('refuses a child under a level-10 rubro of the big tree with 409 profundidad_maxima', async () => {
    const [deep] = await t.query<{ id: number }>(`SELECT id FROM rubros WHERE nombre = 'L10-500'`);
    const res = await t.post('/api/v1/admin/rubros', { nombre: 'Nivel 11', parentId: deep!.id }, { token: admin });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('profundidad_maxima');
  });
});
