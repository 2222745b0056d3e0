import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { expectProblem, TestApp } from '../support/test-app.js';
import { createProductType, createRubro } from '../catalog/catalog-fixtures.js';

/**
 * What an admin console needs from its lists: `sort` on every paged list (whitelisted fields,
 * `-` descending, ties by id, nulls last, unknown fields refused), `search` on medios and roles,
 * and the audit trail filtered by action.
 */

type Value = string | null;
type Row = Record<string, Value>;

/** The order the contract promises: by the keys, nulls last either way, then by insertion (id). */
function expectedOrder(rows: Row[], sort: string, label: string): Array<Value> {
  const keys = sort.split(',').map((k) => (k.startsWith('-') ? { field: k.slice(1), dir: -1 } : { field: k, dir: 1 }));
  return rows
    .map((row, index) => ({ row, index }))
    .sort((a, b) => {
      for (const { field, dir } of keys) {
        const x = a.row[field] ?? null;
        const y = b.row[field] ?? null;
        if (x === y) continue;
        if (x === null) return 1;
        if (y === null) return -1;
        return x < y ? -dir : dir;
      }
      return a.index - b.index;
    })
    .map(({ row }) => row[label] ?? null);
}

const lower = () =>
  randomBytes(4)
    .toString('hex')
    .replace(/\d/g, (d) => 'ghijklmnop'[Number(d)]!);

describe('console lists', () => {
  let t: TestApp, admin: string;
  beforeAll(async () => ({ t, admin } = await TestApp.withAdmin()));
  afterAll(() => t.close());

  const list = (path: string, query: Record<string, string | number>) => t.get(path, { token: admin, query: { pageSize: 100, ...query } });

  /** Runs every field of a whitelist ascending and descending, and checks the page order. */
  async function checkEveryField(path: string, filter: Record<string, string | number>, rows: Row[], label: string, whitelist: string[]) {
    for (const field of whitelist) {
      for (const sort of [field, `-${field}`]) {
        const res = await list(path, { ...filter, sort });
        expect([sort, res.status]).toEqual([sort, 200]);
        expect([sort, res.body.items.map((i: Row) => i[label])]).toEqual([sort, expectedOrder(rows, sort, label)]);
      }
      // the data makes each field's two directions differ, so the test sees a direction that is ignored
      expect(expectedOrder(rows, field, label)).not.toEqual(expectedOrder(rows, `-${field}`, label));
    }
  }

  describe('sort', () => {
    describe('users: username, nombre, apellido, email, createdAt, ultimoLogin', () => {
      const tag = `srt${lower()}`;
      const seed = [
        {
          username: `${tag}d`,
          nombre: 'beta',
          apellido: 'zeta',
          email: `${tag}c@example.test`,
          createdAt: '2025-01-04T00:00:00.000Z',
          ultimoLogin: null,
        },
        {
          username: `${tag}b`,
          nombre: 'delta',
          apellido: 'eta',
          email: `${tag}a@example.test`,
          createdAt: '2025-01-02T00:00:00.000Z',
          ultimoLogin: '2025-02-01T00:00:00.000Z',
        },
        {
          username: `${tag}a`,
          nombre: 'omega',
          apellido: 'eta',
          email: `${tag}d@example.test`,
          createdAt: '2025-01-01T00:00:00.000Z',
          ultimoLogin: null,
        },
        {
          username: `${tag}c`,
          nombre: 'gama',
          apellido: 'alfa',
          email: `${tag}b@example.test`,
          createdAt: '2025-01-03T00:00:00.000Z',
          ultimoLogin: '2025-03-01T00:00:00.000Z',
        },
      ];

      beforeAll(async () => {
        for (const u of seed) {
          const created = await t.createUser('consulta', { username: u.username });
          await t.query('UPDATE users SET nombre = $1, apellido = $2, email = $3, created_at = $4, ultimo_login = $5 WHERE id = $6', [
            u.nombre,
            u.apellido,
            u.email,
            new Date(u.createdAt),
            u.ultimoLogin === null ? null : new Date(u.ultimoLogin),
            created.id,
          ]);
        }
      });

      it('orders the page by every whitelisted field, ascending and with - descending (nulls last, ties by id)', async () => {
        await checkEveryField('/api/v1/users', { search: tag }, seed, 'username', [
          'username',
          'nombre',
          'apellido',
          'email',
          'createdAt',
          'ultimoLogin',
        ]);
      });

      it('combines keys left to right: sort=apellido,-nombre', async () => {
        const res = await list('/api/v1/users', { search: tag, sort: 'apellido,-nombre' });
        expect(res.body.items.map((i: Row) => i.username)).toEqual([`${tag}c`, `${tag}a`, `${tag}b`, `${tag}d`]);
      });

      it('keeps the default order (username) without sort', async () => {
        const res = await list('/api/v1/users', { search: tag });
        expect(res.body.items.map((i: Row) => i.username)).toEqual([`${tag}a`, `${tag}b`, `${tag}c`, `${tag}d`]);
      });

      it('pages a sorted list without overlap or gaps', async () => {
        const pages = [];
        for (const page of [1, 2]) pages.push(...(await list('/api/v1/users', { search: tag, sort: '-createdAt', page, pageSize: 2 })).body.items);
        expect(pages.map((i: Row) => i.username)).toEqual(expectedOrder(seed, '-createdAt', 'username'));
      });
    });

    describe('products and product types: codigo, nombre, createdAt', () => {
      const TAG = `S${lower().toUpperCase()}`;
      const seed = [
        { codigo: `${TAG}_C`, nombre: 'beta', createdAt: '2025-01-02T00:00:00.000Z' },
        { codigo: `${TAG}_A`, nombre: 'gama', createdAt: '2025-01-03T00:00:00.000Z' },
        { codigo: `${TAG}_B`, nombre: 'alfa', createdAt: '2025-01-01T00:00:00.000Z' },
      ];

      it('orders product types by every whitelisted field, both directions', async () => {
        for (const row of seed) {
          const res = await t.post('/api/v1/admin/product-types', { codigo: row.codigo, nombre: row.nombre, descripcion: 'x' }, { token: admin });
          expect(res.status).toBe(201);
          await t.query('UPDATE product_types SET created_at = $1 WHERE id = $2', [new Date(row.createdAt), res.body.id]);
        }
        await checkEveryField('/api/v1/product-types', { search: TAG }, seed, 'codigo', ['codigo', 'nombre', 'createdAt']);
      });

      it('orders products by every whitelisted field, both directions', async () => {
        const rubro = await createRubro(t, admin, `Orden ${TAG}`);
        const type = await createProductType(t, admin);
        for (const row of seed) {
          const res = await t.post(
            '/api/v1/admin/products',
            { codigo: row.codigo, nombre: row.nombre, rubroId: rubro.id, productTypeId: type.id },
            { token: admin },
          );
          expect(res.status).toBe(201);
          await t.query('UPDATE products SET created_at = $1 WHERE id = $2', [new Date(row.createdAt), res.body.id]);
        }
        await checkEveryField('/api/v1/products', { search: TAG }, seed, 'codigo', ['codigo', 'nombre', 'createdAt']);
      });
    });

    describe('puntos de venta: numeroAFIP, nombre, createdAt', () => {
      it('orders the points of sale of a medio by every whitelisted field, both directions', async () => {
        const medio = await t.post('/api/v1/admin/medios', { codigo: `M${lower().toUpperCase()}`, nombre: 'Orden' }, { token: admin });
        const seed = [
          { numeroAFIP: 7, nombre: 'beta', createdAt: '2025-01-03T00:00:00.000Z' },
          { numeroAFIP: 3, nombre: 'gama', createdAt: '2025-01-01T00:00:00.000Z' },
          { numeroAFIP: 12, nombre: 'alfa', createdAt: '2025-01-02T00:00:00.000Z' },
        ];
        const rows: Row[] = [];
        for (const p of seed) {
          const res = await t.post(
            '/api/v1/admin/puntos-de-venta',
            { medioId: medio.body.id, numeroAFIP: p.numeroAFIP, nombre: p.nombre, domicilio: 'Calle 1' },
            { token: admin },
          );
          expect(res.status).toBe(201);
          await t.query('UPDATE puntos_de_venta SET created_at = $1 WHERE id = $2', [new Date(p.createdAt), res.body.id]);
          // numbers compared as zero-padded text so the expected order is numeric
          rows.push({ key: String(p.numeroAFIP), numeroAFIP: String(p.numeroAFIP).padStart(5, '0'), nombre: p.nombre, createdAt: p.createdAt });
        }
        for (const field of ['numeroAFIP', 'nombre', 'createdAt']) {
          for (const sort of [field, `-${field}`]) {
            const res = await list('/api/v1/admin/puntos-de-venta', { medioId: medio.body.id, sort });
            expect([sort, res.body.items.map((i: { numeroAFIP: number }) => String(i.numeroAFIP))]).toEqual([sort, expectedOrder(rows, sort, 'key')]);
          }
        }
        // default: by numeroAFIP within the medio
        const res = await list('/api/v1/admin/puntos-de-venta', { medioId: medio.body.id });
        expect(res.body.items.map((i: { numeroAFIP: number }) => i.numeroAFIP)).toEqual([3, 7, 12]);
      });
    });

    it.each([
      ['/api/v1/users', 'passwordHash'],
      ['/api/v1/users', 'username,rol'],
      ['/api/v1/users', '-createdAt,-createdAt'],
      ['/api/v1/users', 'username; DROP TABLE users'],
      ['/api/v1/users', 'u.id'],
      ['/api/v1/products', 'precio'],
      ['/api/v1/products', ''],
      ['/api/v1/product-types', 'descripcion'],
      ['/api/v1/admin/puntos-de-venta', 'medioId'],
      ['/api/v1/admin/puntos-de-venta', 'domicilio'],
    ])('refuses %s?sort=%j with 400 validacion naming the field', async (path, sort) => {
      const res = await list(path, { sort });
      expectProblem(res, 400, 'validacion');
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'sort', code: 'isSort' })]);
    });

    it('names the unknown field and the whitelist in the message', async () => {
      const res = await list('/api/v1/users', { sort: 'username,passwordHash' });
      expect(res.body.errors[0].message).toContain('passwordHash');
      expect(res.body.errors[0].message).toContain('ultimoLogin');
    });
  });

  describe('search on medios and roles', () => {
    it('finds medios by a case-insensitive substring of codigo or nombre, wildcards taken literally', async () => {
      const tag = lower().toUpperCase();
      const a = await t.post('/api/v1/admin/medios', { codigo: `BQ_${tag}`, nombre: 'Diario Uno' }, { token: admin });
      const b = await t.post('/api/v1/admin/medios', { codigo: `OTRO_${lower().toUpperCase()}`, nombre: `Semanario ${tag} Sur` }, { token: admin });
      await t.post(`/api/v1/admin/medios/${b.body.id}/deactivate`, undefined, { token: admin });
      const ids = async (query: Record<string, string>) =>
        (await t.get('/api/v1/admin/medios', { token: admin, query })).body.map((m: { id: number }) => m.id);
      expect(await ids({ search: tag.toLowerCase() })).toEqual([a.body.id, b.body.id]); // by codigo: BQ_ before OTRO_
      expect(await ids({ search: `bq_${tag.toLowerCase()}` })).toEqual([a.body.id]);
      expect(await ids({ search: `SEMANARIO ${tag}` })).toEqual([b.body.id]);
      expect(await ids({ search: tag, activo: 'true' })).toEqual([a.body.id]);
      expect(await ids({ search: '%' })).toEqual([]);
      expect(await ids({ search: `BQ%${tag}` })).toEqual([]);
      // a term pasted with spaces around it, or typed with a combining accent, finds what it shows
      expect(await ids({ search: `  semanario ${tag}  ` })).toEqual([b.body.id]);
      const espana = await t.post('/api/v1/admin/medios', { codigo: `ES_${tag}`, nombre: `Espan\u0303a ${tag}` }, { token: admin });
      expect(espana.body.nombre).toBe(`España ${tag}`);
      expect(await ids({ search: `n\u0303a ${tag}` })).toEqual([espana.body.id]);
      expect(await ids({ search: `ña ${tag}` })).toEqual([espana.body.id]);
      // lowercased by the database on both sides: a name finds itself whatever the letters
      const greek = await t.post('/api/v1/admin/medios', { codigo: `GR_${tag}`, nombre: `ΟΔΟΣ ${tag}` }, { token: admin });
      const turkish = await t.post('/api/v1/admin/medios', { codigo: `TR_${tag}`, nombre: `İstanbul ${tag}` }, { token: admin });
      const nandu = await t.post('/api/v1/admin/medios', { codigo: `NA_${tag}`, nombre: `El Ñandú ${tag}` }, { token: admin });
      expect(await ids({ search: `ΟΔΟΣ ${tag}` })).toEqual([greek.body.id]);
      expect(await ids({ search: `İstanbul ${tag}` })).toEqual([turkish.body.id]);
      expect(await ids({ search: `El Ñandú ${tag}` })).toEqual([nandu.body.id]);
      expect(await ids({ search: `ñandú ${tag}` })).toEqual([nandu.body.id]);
    });

    it('finds roles by a case-insensitive substring of codigo or nombre, inactive ones with incluirInactivos', async () => {
      const tag = lower();
      await t.post('/api/v1/roles', { codigo: `busca_${tag}`, nombre: 'Rol de prueba' }, { token: admin });
      await t.post('/api/v1/roles', { codigo: `otro_${tag}_x`, nombre: `Cobranzas ${tag.toUpperCase()}` }, { token: admin });
      await t.post('/api/v1/roles', { codigo: `baja_${tag}`, nombre: 'Inactivo' }, { token: admin });
      await t.delete(`/api/v1/roles/baja_${tag}`, { token: admin });
      const codes = async (query: Record<string, string>) =>
        (await t.get('/api/v1/roles', { token: admin, query })).body.map((r: { codigo: string }) => r.codigo);
      expect(await codes({ search: tag.toUpperCase() })).toEqual([`busca_${tag}`, `otro_${tag}_x`]);
      expect(await codes({ search: 'COBRANZAS' })).toEqual([`otro_${tag}_x`]);
      expect(await codes({ search: tag, incluirInactivos: 'true' })).toEqual([`baja_${tag}`, `busca_${tag}`, `otro_${tag}_x`]);
      expect(await codes({ search: 'SUPERV' })).toEqual(['supervisor']);
      expect(await codes({ search: '_' })).toEqual(expect.not.arrayContaining(['admin']));
    });

    it('refuses a search longer than 100 characters (400)', async () => {
      expectProblem(await t.get('/api/v1/roles', { token: admin, query: { search: 'x'.repeat(101) } }), 400, 'validacion');
      expectProblem(await t.get('/api/v1/admin/medios', { token: admin, query: { search: 'x'.repeat(101) } }), 400, 'validacion');
    });
  });

  describe('audit action filter', () => {
    it('answers only the events of exactly that action, paged by cursor', async () => {
      const medio = await t.post('/api/v1/admin/medios', { codigo: `AU${lower().toUpperCase()}`, nombre: 'Audit 0' }, { token: admin });
      for (const n of [1, 2, 3]) await t.put(`/api/v1/admin/medios/${medio.body.id}`, { nombre: `Audit ${n}` }, { token: admin });
      const first = await t.get('/api/v1/audit/events', {
        token: admin,
        query: { action: 'medio.update', targetId: String(medio.body.id), limit: 2 },
      });
      expect(first.status).toBe(200);
      expect(first.body.items.map((e: { action: string }) => e.action)).toEqual(['medio.update', 'medio.update']);
      const second = await t.get('/api/v1/audit/events', {
        token: admin,
        query: { action: 'medio.update', targetId: String(medio.body.id), limit: 2, cursor: first.body.nextCursor },
      });
      expect(second.body.items.map((e: { action: string }) => e.action)).toEqual(['medio.update']);
      expect(second.body.nextCursor).toBeNull();
      const creates = await t.get('/api/v1/audit/events', { token: admin, query: { action: 'medio.create', targetId: String(medio.body.id) } });
      expect(creates.body.items.map((e: { action: string }) => e.action)).toEqual(['medio.create']);
      // exact, not a prefix or a pattern
      for (const action of ['medio', 'medio.%', 'medio.update_']) {
        const res = await t.get('/api/v1/audit/events', { token: admin, query: { action, targetId: String(medio.body.id) } });
        expect([action, res.body.items]).toEqual([action, []]);
      }
    });

    it('refuses an empty or over-long action (400)', async () => {
      for (const action of ['', 'x'.repeat(65)]) {
        expectProblem(await t.get('/api/v1/audit/events', { token: admin, query: { action } }), 400, 'validacion');
      }
    });
  });
});
