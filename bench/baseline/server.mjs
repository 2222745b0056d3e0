// The raw baseline: the same work per request as the service for the two hot scenarios, written by
// hand on fastify + pg + jose with nothing in between. It is the practical limit of this stack on
// this machine; the bench reports the service as a ratio of it.
//
//   GET  /api/v1/admin/medios/:id  verify the RS256 token → effective-permission query → read the medio
//   POST /api/v1/admin/medios      verify → permissions → one transaction: insert the medio (RETURNING
//                                  the row; a duplicate codigo is the unique index's 23505), insert its
//                                  audit row
//   GET  /api/v1/auth/me           verify → permissions → read the user (fallback guarded read)
//
// Environment: DATABASE_URL, PORT, JWKS_URL (the service's /.well-known/jwks.json), JWT_ISSUER,
// JWT_AUDIENCE, DB_POOL_SIZE, DB_STATEMENT_TIMEOUT_MS (defaults = the service's defaults).
import Fastify from 'fastify';
import { importJWK, jwtVerify } from 'jose';
import { randomUUID } from 'node:crypto';
import pg from 'pg';

const env = process.env;
const PORT = Number(env.PORT ?? 3100);
const ISSUER = env.JWT_ISSUER ?? 'medios-admin-api';
const AUDIENCE = env.JWT_AUDIENCE ?? 'medios-admin';
const POOL_SIZE = Number(env.DB_POOL_SIZE ?? 10);
const STATEMENT_TIMEOUT_MS = Number(env.DB_STATEMENT_TIMEOUT_MS ?? 15000);
const MEDIOS_PERMISSION = 'administracion:medios:gestionar';
const CODIGO = /^[A-Z0-9_]{1,20}$/;
const POSITIVE_INT = /^[1-9]\d{0,9}$/;

// Same pool settings as the service's PostgreSQL dialect (src/database/dialects/postgres.dialect.ts).
const pool = new pg.Pool({
  connectionString: env.DATABASE_URL,
  max: POOL_SIZE,
  application_name: 'medios-bench-baseline',
  connectionTimeoutMillis: 5000,
  idleTimeoutMillis: 30_000,
  statement_timeout: STATEMENT_TIMEOUT_MS,
  query_timeout: STATEMENT_TIMEOUT_MS + 1000,
  options: '-c TimeZone=UTC',
});

// The exact statement the service sends for EffectivePermissionsService.resolve (src/auth/effective-permissions.service.ts),
// as PostgreSQL logs it (log_statement = all): the caller's whole permission list, for GET /auth/me.
const PERMISSIONS_SQL =
  'SELECT u.username AS username, u.activo AS activo, u.permission_overrides AS overrides, r.codigo AS rol, r.activo AS rol_activo, ' +
  'p.codigo AS permiso FROM users u INNER JOIN roles r ON r.id = u.role_id ' +
  'LEFT JOIN role_permissions rp ON rp.role_id = r.id AND r.activo = $1 ' +
  'LEFT JOIN permissions p ON p.id = rp.permission_id WHERE u.id = $2';

// The guard's per-request statements (authorizationStatement in src/auth/effective-permissions.service.ts), sent like the
// service sends them: named prepared statements, by the number of permissions the route needs. Values: $1 session id,
// $2 now, then for one permission $3 the code and $4 true (active role), and last the user id.
const SESSION_LIVE =
  'CASE WHEN EXISTS (SELECT 1 FROM sessions s WHERE s.id = $1 AND s.user_id = u.id AND s.ended_at IS NULL AND s.expires_at > $2) THEN 1 ELSE 0 END AS sesion_activa';
const GUARD_SQL = [
  `SELECT u.username AS username, r.codigo AS rol, u.activo AS activo, ${SESSION_LIVE} FROM users u INNER JOIN roles r ON r.id = u.role_id WHERE u.id = $3`,
  `SELECT u.username AS username, r.codigo AS rol, u.activo AS activo, ${SESSION_LIVE}, ` +
    "CASE WHEN NOT ((CAST(u.permission_overrides AS jsonb) -> 'denied') @> jsonb_build_array(CAST($3 AS text))) AND (" +
    "((CAST(u.permission_overrides AS jsonb) -> 'granted') @> jsonb_build_array(CAST($3 AS text))) OR EXISTS (SELECT 1 FROM role_permissions rp " +
    'INNER JOIN permissions p ON p.id = rp.permission_id WHERE rp.role_id = r.id AND r.activo = $4 AND p.codigo = $3)) THEN 1 ELSE 0 END AS p0 ' +
    'FROM users u INNER JOIN roles r ON r.id = u.role_id WHERE u.id = $5',
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const jwks = await (await globalThis.fetch(env.JWKS_URL)).json();
const jwk = jwks.keys[0];
const publicKey = await importJWK(jwk, 'RS256');

class HttpError extends Error {
  constructor(status, code) {
    super(code);
    this.status = status;
    this.code = code;
  }
}

/** Verifies the bearer token (RS256 only, published kid, iss/aud, exp and jti required). */
async function verify(request) {
  const header = request.headers.authorization;
  if (typeof header !== 'string' || !header.startsWith('Bearer ')) throw new HttpError(401, 'no_autenticado');
  let payload;
  try {
    ({ payload } = await jwtVerify(
      header.slice(7),
      (protectedHeader) => {
        if (protectedHeader.kid !== jwk.kid) throw new Error('unknown kid');
        return publicKey;
      },
      { algorithms: ['RS256'], issuer: ISSUER, audience: AUDIENCE, requiredClaims: ['exp', 'jti'] },
    ));
  } catch {
    throw new HttpError(401, 'no_autenticado');
  }
  if (typeof payload.sub !== 'string' || !POSITIVE_INT.test(payload.sub) || Number(payload.sub) > 2_147_483_647)
    throw new HttpError(401, 'no_autenticado');
  if (typeof payload.sid !== 'string' || !UUID.test(payload.sid)) throw new HttpError(401, 'no_autenticado');
  return { userId: Number(payload.sub), jti: payload.jti, sessionId: payload.sid.toLowerCase() };
}

/** The guard: the caller exists and is active, its session is live, and it holds `permission` in (role ∪ granted) − denied. */
async function authorize(request, permission) {
  const { userId, sessionId } = await verify(request);
  const values = permission ? [sessionId, new Date(), permission, true, userId] : [sessionId, new Date(), userId];
  const { rows } = await pool.query({ name: `guard_authorize_${permission ? 1 : 0}`, text: GUARD_SQL[permission ? 1 : 0], values });
  const row = rows[0];
  if (!row || !row.activo || Number(row.sesion_activa) !== 1) throw new HttpError(401, 'no_autenticado');
  if (permission && Number(row.p0) !== 1) throw new HttpError(403, 'permiso_denegado');
  return { userId, username: row.username, rol: row.rol };
}

/** The caller's effective permissions, sorted: (role ∪ granted) − denied (GET /auth/me only, like the service). */
async function permissionsOf(userId) {
  const { rows } = await pool.query(PERMISSIONS_SQL, [true, userId]);
  const raw = rows[0]?.overrides;
  const overrides = typeof raw === 'string' ? JSON.parse(raw) : (raw ?? {});
  const denied = new Set(overrides.denied ?? []);
  return [...new Set([...rows.map((r) => r.permiso).filter(Boolean), ...(overrides.granted ?? [])])].filter((c) => !denied.has(c)).sort();
}

const medioDto = (m) => ({
  id: m.id,
  codigo: m.codigo,
  nombre: m.nombre,
  activo: m.activo,
  createdAt: m.created_at.toISOString(),
  updatedAt: m.updated_at.toISOString(),
});

const app = Fastify({ logger: false, genReqId: () => randomUUID() });

app.addHook('onRequest', async (request, reply) => {
  reply.header('x-correlation-id', request.id);
});

app.setErrorHandler((err, request, reply) => {
  const status = err instanceof HttpError ? err.status : (err.statusCode ?? 500);
  reply
    .code(status)
    .type('application/problem+json')
    .send({ type: 'about:blank', status, code: err instanceof HttpError ? err.code : 'error_interno', correlationId: request.id });
});

app.get('/health', async () => ({ status: 'ok' }));

app.get('/api/v1/admin/medios/:id', async (request) => {
  await authorize(request, MEDIOS_PERMISSION);
  const id = request.params.id;
  if (!POSITIVE_INT.test(id)) throw new HttpError(400, 'validacion');
  const { rows } = await pool.query('SELECT id, codigo, nombre, activo, created_at, updated_at FROM medios WHERE id = $1 LIMIT 1', [Number(id)]);
  if (!rows[0]) throw new HttpError(404, 'no_encontrado');
  return medioDto(rows[0]);
});

app.post('/api/v1/admin/medios', async (request, reply) => {
  const caller = await authorize(request, MEDIOS_PERMISSION);
  const body = request.body ?? {};
  const nombre = typeof body.nombre === 'string' ? body.nombre.trim() : '';
  if (typeof body.codigo !== 'string' || !CODIGO.test(body.codigo) || !nombre || nombre.length > 100 || Object.keys(body).length !== 2) {
    throw new HttpError(400, 'validacion');
  }
  const client = await pool.connect();
  let medio;
  try {
    await client.query('BEGIN');
    const now = new Date();
    ({
      rows: [medio],
    } = await client.query(
      'INSERT INTO medios (codigo, nombre, activo, created_at, updated_at) VALUES ($1, $2, true, $3, $3) RETURNING id, codigo, nombre, activo, created_at, updated_at',
      [body.codigo, nombre, now],
    ));
    await client.query(
      'INSERT INTO audit_events (actor_user_id, actor_role_id, ip, user_agent, correlation_id, action, target_type, target_id, metadata) ' +
        'VALUES ($1, NULL, $2, $3, $4, $5, $6, $7, $8)',
      [
        caller.userId,
        request.ip,
        (request.headers['user-agent'] ?? '').slice(0, 512) || null,
        request.id,
        'medio.create',
        'medio',
        String(medio.id),
        JSON.stringify({ after: { codigo: body.codigo, nombre } }),
      ],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    if (err.code === '23505') throw new HttpError(409, 'duplicado');
    throw err;
  } finally {
    client.release();
  }
  reply.code(201).header('location', `/api/v1/admin/medios/${medio.id}`);
  return medioDto(medio);
});

app.get('/api/v1/auth/me', async (request) => {
  const caller = await authorize(request, undefined);
  const { rows } = await pool.query('SELECT id, username, nombre, apellido, email, must_change_password FROM users WHERE id = $1 LIMIT 1', [
    caller.userId,
  ]);
  const u = rows[0];
  if (!u) throw new HttpError(401, 'no_autenticado');
  return {
    id: u.id,
    username: u.username,
    nombre: u.nombre,
    apellido: u.apellido,
    email: u.email,
    rol: caller.rol,
    mustChangePassword: u.must_change_password,
    permisos: await permissionsOf(caller.userId),
  };
});

const shutdown = async () => {
  await app.close();
  await pool.end();
  process.exit(0);
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);

await app.listen({ port: PORT, host: '127.0.0.1' });
process.stdout.write(`baseline listening on ${PORT}\n`);
