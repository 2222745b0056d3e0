import { afterEach, describe, expect } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource, type MigrationInterface } from 'typeorm';
import { POSTGRES_MIGRATIONS } from '../../migrations/postgres/index.js';
import { loadAppConfig } from '../../src/common/config/index.js';
import { connectionSettings, revertLastMigration, runMigrations, withMigrations } from '../../src/database/database-runtime.js';
import { dialectFor } from '../../src/database/dialects/index.js';
import { createTestDatabase, dropTestDatabase, onlyOn } from '../support/test-database.js';

/**
 * Every PostgreSQL migration's `down` must put the schema back exactly as its `up` found it, on an
 * empty database and on one holding data, so that an operator's revert (docs/operations.md) leaves
 * a database the migrations can be applied to again. The schema is read from the catalog
 * (`fingerprint`) after each `up`, applied one at a time, and compared after each revert.
 *
 * What the fingerprint does not cover, on purpose: the role `medios_app` belongs to the cluster
 * (other databases of the server share it, the append-only migration's `down` keeps it), so only
 * its privileges inside this database are compared; sequences' current values and rows the
 * services write are data, not schema, except the role and permission catalog the migrations seed.
 */
const config = loadAppConfig(process.env);
const pg = dialectFor('postgres');
const postgresOnly = onlyOn('postgres', 'the PostgreSQL migrations');

type Migration = new () => MigrationInterface;
type Fingerprint = Record<string, string[]>;

/** What `actual` lacks of `expected` and what it has on top, each line prefixed with its kind: small enough to read in a failure. */
function schemaDiff(expected: Fingerprint, actual: Fingerprint): { missing: string[]; unexpected: string[] } {
  const flat = (fp: Fingerprint) => new Set(Object.entries(fp).flatMap(([kind, lines]) => lines.map((line) => `${kind}: ${line}`)));
  const [want, have] = [flat(expected), flat(actual)];
  return { missing: [...want].filter((l) => !have.has(l)), unexpected: [...have].filter((l) => !want.has(l)) };
}

const same = { missing: [], unexpected: [] };

const created: string[] = [];
afterEach(async () => {
  for (const name of created.splice(0)) await dropTestDatabase(name);
});

/** An empty database of this run, dropped after the test. */
async function emptyDatabase(): Promise<string> {
  const { name, url } = await createTestDatabase(config, { migrated: false });
  created.push(name);
  return url;
}

const applyUpTo = (url: string, count: number) =>
  withMigrations(
    config,
    url,
    async (ds) => (await ds.runMigrations({ transaction: 'each' })).map((m) => m.name),
    POSTGRES_MIGRATIONS.slice(0, count),
  );

const revertLast = (url: string) => revertLastMigration(config, url);

const appliedMigrations = (db: DataSource): Promise<string[]> =>
  db.query('SELECT name FROM migrations ORDER BY id').then((rows: Array<{ name: string }>) => rows.map((r) => r.name));

/**
 * `aclitem[]` as sorted `grantee:privilege` items. A NULL ACL means the object's built-in default
 * (`acldefault`, for the `kind` of object, a SQL expression), so it equals the same grants written out.
 */
const acl = (items: string, kind: string, owner: string) => `(
  SELECT coalesce(string_agg(x.item, ',' ORDER BY x.item), '')
    FROM (SELECT CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE pg_get_userbyid(a.grantee) END || ':' || a.privilege_type
                 || CASE WHEN a.is_grantable THEN '*' ELSE '' END AS item
            FROM aclexplode(coalesce(${items}, acldefault(${kind}, ${owner}))) a) x)`;

/** The schema of the current schema (and the seeded catalog), as sorted lines per kind of object. */
async function fingerprint(db: DataSource): Promise<Fingerprint> {
  const lines = async (sql: string): Promise<string[]> => ((await db.query(sql)) as Array<{ line: string }>).map((r) => r.line).sort();
  const inSchema = 'n.nspname = current_schema()';
  const fp: Fingerprint = {
    schema: await lines(`SELECT 'usage ' || ${acl('n.nspacl', `'n'`, 'n.nspowner')} AS line FROM pg_namespace n WHERE ${inSchema}`),
    extensions: await lines(`SELECT extname || ' ' || extversion AS line FROM pg_extension`),
    relations: await lines(`
      SELECT concat_ws(' | ', c.relname, c.relkind, c.relpersistence, c.relrowsecurity, c.reloptions::text,
               pg_get_partkeydef(c.oid), pg_get_expr(c.relpartbound, c.oid), obj_description(c.oid, 'pg_class'),
               ${acl('c.relacl', `CASE WHEN c.relkind = 'S' THEN 's' ELSE 'r' END::"char"`, 'c.relowner')}) AS line
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE ${inSchema} AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f', 'c')`),
    partitions: await lines(`
      SELECT p.relname || ' OF ' || c.relname AS line
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhparent JOIN pg_class p ON p.oid = i.inhrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${inSchema}`),
    sequences: await lines(`
      SELECT concat_ws(' | ', c.relname, format_type(s.seqtypid, NULL), s.seqstart, s.seqincrement, s.seqmin, s.seqmax, s.seqcycle,
               (SELECT t.relname || '.' || a.attname FROM pg_depend d JOIN pg_class t ON t.oid = d.refobjid
                  JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
                 WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))) AS line
        FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${inSchema}`),
    // position among the live columns: the versioning trigger copies rows into history tables by position
    columns: await lines(`
      SELECT concat_ws(' | ', c.relname || '.' || a.attname,
               row_number() OVER (PARTITION BY c.oid ORDER BY a.attnum), format_type(a.atttypid, a.atttypmod),
               CASE WHEN a.attnotnull THEN 'NOT NULL' ELSE 'NULL' END, pg_get_expr(ad.adbin, ad.adrelid),
               co.collname, a.attidentity, a.attgenerated, col_description(c.oid, a.attnum),
               ${acl('a.attacl', `'c'`, 'c.relowner')}) AS line
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
        LEFT JOIN pg_collation co ON co.oid = a.attcollation AND a.attcollation <> 0
       WHERE ${inSchema} AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'c') AND a.attnum > 0 AND NOT a.attisdropped`),
    indexes: await lines(`
      SELECT pg_get_indexdef(x.indexrelid) || CASE WHEN x.indisvalid THEN '' ELSE ' INVALID' END AS line
        FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${inSchema}`),
    constraints: await lines(`
      SELECT concat_ws(' | ', c.relname, k.conname, k.contype, pg_get_constraintdef(k.oid), k.convalidated, k.condeferrable, k.condeferred) AS line
        FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${inSchema}`),
    triggers: await lines(`
      SELECT pg_get_triggerdef(t.oid) || ' ' || t.tgenabled::text AS line
        FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE ${inSchema} AND NOT t.tgisinternal`),
    views: await lines(`
      SELECT c.relname || ' AS ' || pg_get_viewdef(c.oid) AS line
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${inSchema} AND c.relkind IN ('v', 'm')`),
    policies: await lines(`
      SELECT concat_ws(' | ', c.relname, p.polname, p.polcmd, p.polpermissive, pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid)) AS line
        FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${inSchema}`),
    // pg_get_functiondef carries the body, SECURITY DEFINER, SET search_path, volatility…
    functions: await lines(`
      SELECT concat_ws(' | ', pg_get_functiondef(p.oid), obj_description(p.oid, 'pg_proc'), ${acl('p.proacl', `'f'`, 'p.proowner')}) AS line
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE ${inSchema}`),
    types: await lines(`
      SELECT t.typname || ' ' || t.typtype::text || ' ' || format_type(t.oid, NULL) AS line
        FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE ${inSchema} AND t.typtype IN ('e', 'd', 'r', 'm')`),
    defaultPrivileges: await lines(`
      SELECT d.defaclobjtype::text || ' ' || ${acl('d.defaclacl', `'c'`, '0')} AS line
        FROM pg_default_acl d JOIN pg_namespace n ON n.oid = d.defaclnamespace WHERE ${inSchema}`),
  };
  // the catalog the migrations seed is part of what they install (and what a down must take back)
  const has = async (table: string) => ((await db.query('SELECT to_regclass($1) IS NOT NULL AS ok', [table])) as Array<{ ok: boolean }>)[0]!.ok;
  if (await has('roles')) fp.seededRoles = await lines(`SELECT concat_ws(' | ', codigo, nombre, descripcion, activo) AS line FROM roles`);
  if (await has('permissions')) fp.seededPermissions = await lines(`SELECT concat_ws(' | ', codigo, descripcion) AS line FROM permissions`);
  if (await has('role_permissions'))
    fp.seededGrants = await lines(`
      SELECT r.codigo || ' ' || p.codigo AS line FROM role_permissions rp JOIN roles r ON r.id = rp.role_id JOIN permissions p ON p.id = rp.permission_id`);
  if (await has('system_versioning'))
    fp.versioning = await lines(`SELECT concat_ws(' | ', table_name, history_table, retention) AS line FROM system_versioning`);
  return fp;
}

async function usingDatabase<T>(url: string, use: (db: DataSource) => Promise<T>): Promise<T> {
  const db = new DataSource(pg.dataSourceOptions(connectionSettings(config, url, 'medios-test-schema')));
  await db.initialize();
  try {
    return await use(db);
  } finally {
    await db.destroy();
  }
}

const nameOf = (M: Migration) => new M().name ?? M.name;

/** A few rows in the main tables, the way the service writes them (refresh tokens under their session). */
async function insertData(db: DataSource): Promise<void> {
  const [admin]: Array<{ id: number }> = await db.query(`SELECT id FROM roles WHERE codigo = 'admin'`);
  const [user]: Array<{ id: number }> = await db.query(
    `INSERT INTO users (username, password_hash, nombre, apellido, email, role_id) VALUES ('ana', 'x', 'Ana', 'Gómez', 'ana@example.com', $1) RETURNING id`,
    [admin!.id],
  );
  await db.query(`UPDATE users SET nombre = 'Ana María' WHERE id = $1`, [user!.id]);
  const family = randomUUID();
  await db.query(`INSERT INTO sessions (id, user_id, last_used_at, expires_at) VALUES ($1, $2, now(), now() + interval '7 days')`, [
    family,
    user!.id,
  ]);
  await db.query(`INSERT INTO refresh_tokens (token_hash, user_id, family_id, expires_at) VALUES ($1, $2, $3, now() + interval '7 days')`, [
    randomBytes(32).toString('hex'),
    user!.id,
    family,
  ]);
  await db.query(`INSERT INTO login_failures (scope, subject, occurred_at, settled) VALUES ('ip', '10.0.0.1', now(), false)`);
  const [medio]: Array<{ id: number }> = await db.query(`INSERT INTO medios (codigo, nombre) VALUES ('DIARIO_SUR', 'Diario del Sur') RETURNING id`);
  await db.query(`INSERT INTO secciones (medio_id, codigo, nombre, tipo) VALUES ($1, 'AVISOS', 'Avisos', 'clasificados')`, [medio!.id]);
  await db.query(`INSERT INTO puntos_de_venta (medio_id, numero_afip, nombre, domicilio) VALUES ($1, 1, 'Central', 'San Martín 100')`, [medio!.id]);
  await db.query(`INSERT INTO tipos_iva (codigo, descripcion, porcentaje) VALUES (5, 'IVA 21%', 21)`);
  await db.query(`INSERT INTO ingresos_brutos (provincia, descripcion, alicuota) VALUES ('SAN_JUAN', 'San Juan', 2.5)`);
  const [rubro]: Array<{ id: number }> = await db.query(`INSERT INTO rubros (nombre) VALUES ('Inmuebles') RETURNING id`);
  const [tipo]: Array<{ id: number }> = await db.query(`INSERT INTO product_types (codigo, nombre) VALUES ('AVISO', 'Aviso') RETURNING id`);
  const [product]: Array<{ id: number }> = await db.query(
    `INSERT INTO products (codigo, nombre, rubro_id, product_type_id) VALUES ('AV_LINEA', 'Aviso por línea', $1, $2) RETURNING id`,
    [rubro!.id, tipo!.id],
  );
  await db.query(`INSERT INTO product_prices (product_id, fecha_vigencia, monto) VALUES ($1, current_date, 150.5)`, [product!.id]);
  await db.query(
    `INSERT INTO audit_events (actor_user_id, action, target_type, target_id, metadata) VALUES ($1, 'medio.create', 'medio', $2, '{}')`,
    [user!.id, String(medio!.id)],
  );
  await db.query(`INSERT INTO security_events (action, result, actor_user_id) VALUES ('login', 'success', $1)`, [user!.id]);
}

describe('PostgreSQL migrations: down reverses up', () => {
  postgresOnly(
    'reverting the migrations one at a time restores, after each, the schema its up found, and applying them again rebuilds the same schema',
    async () => {
      const url = await emptyDatabase();
      await usingDatabase(url, async (db) => {
        // the bookkeeping table exists before the first up, and stays after the last down
        await applyUpTo(url, 0);
        const before: Fingerprint[] = [];
        for (let i = 0; i < POSTGRES_MIGRATIONS.length; i++) {
          before.push(await fingerprint(db));
          expect(await applyUpTo(url, i + 1)).toEqual([nameOf(POSTGRES_MIGRATIONS[i]!)]);
          // the fingerprint must see what each up does (a migration whose up takes no query runner changes nothing)
          if (POSTGRES_MIGRATIONS[i]!.prototype.up.length > 0) expect(schemaDiff(before[i]!, await fingerprint(db))).not.toEqual(same);
        }
        const full = await fingerprint(db);

        for (let i = POSTGRES_MIGRATIONS.length - 1; i >= 0; i--) {
          const reverted = nameOf(POSTGRES_MIGRATIONS[i]!);
          expect(await revertLast(url)).toBe(reverted);
          expect(await appliedMigrations(db)).toEqual(POSTGRES_MIGRATIONS.slice(0, i).map(nameOf));
          expect({ reverted, ...schemaDiff(before[i]!, await fingerprint(db)) }).toEqual({ reverted, ...same });
        }

        expect(await revertLast(url)).toBeUndefined(); // nothing left to revert
        expect(await runMigrations(config, url)).toEqual(POSTGRES_MIGRATIONS.map(nameOf));
        expect(schemaDiff(full, await fingerprint(db))).toEqual(same);
      });
    },
    240_000,
  );

  postgresOnly(
    'with rows in the main tables, the last migration reverts and applies again, and so does every migration after the platform',
    async () => {
      const url = await emptyDatabase();
      await runMigrations(config, url);
      await usingDatabase(url, async (db) => {
        const full = await fingerprint(db);
        await insertData(db);

        const last = POSTGRES_MIGRATIONS[POSTGRES_MIGRATIONS.length - 1]!;
        await revertLast(url);
        expect(await runMigrations(config, url)).toEqual([nameOf(last)]);
        expect(schemaDiff(full, await fingerprint(db))).toEqual(same);

        for (let i = POSTGRES_MIGRATIONS.length - 1; i >= 1; i--) await revertLast(url);
        expect(await appliedMigrations(db)).toEqual([nameOf(POSTGRES_MIGRATIONS[0]!)]);
        expect(await runMigrations(config, url)).toEqual(POSTGRES_MIGRATIONS.slice(1).map(nameOf));
        expect(schemaDiff(full, await fingerprint(db))).toEqual(same);

        // the platform's tables kept their rows; the sessions table was rebuilt from the refresh tokens
        const [counts]: Array<Record<string, string>> = await db.query(`
          SELECT (SELECT count(*) FROM users WHERE username = 'ana') AS users,
                 (SELECT count(*) FROM users_history) AS user_versions,
                 (SELECT count(*) FROM sessions s JOIN refresh_tokens t ON t.family_id = s.id) AS sessions,
                 (SELECT count(*) FROM audit_events WHERE row_hash IS NOT NULL) AS hashed_audit_events,
                 (SELECT count(*) FROM security_events WHERE row_hash IS NOT NULL) AS hashed_security_events`);
        expect(counts).toEqual({ users: '1', user_versions: '1', sessions: '1', hashed_audit_events: '1', hashed_security_events: '1' });
      });
    },
    240_000,
  );
});
