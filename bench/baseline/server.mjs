// The minimal baseline: the least work that gives the same answers as the service on the hot
// scenarios, written by hand on fastify + pg + jose with nothing in between. It is the practical
// limit of this stack on this machine; the bench reports the service as a ratio of it.
//
// Its statements are written for it, not copied from the service: each request sends the fewest
// round trips the semantics allow, as named prepared statements (PostgreSQL parses and plans each
// once per connection).
//
//   GET  /api/v1/admin/medios/:id  verify the RS256 token → one statement of flags (user active,
//                                  session live, permission held) → read the medio → ETag
//   POST /api/v1/admin/medios      verify → the same statement → one transaction: insert the medio
//                                  (RETURNING the row; a duplicate codigo is the unique index's
//                                  23505) and its audit row, hashed as docs/operations-audit.md
//                                  ("Canonical serialization") says, so the integrity check accepts it
//   GET  /api/v1/auth/me           verify → liveness → the user and its effective permissions
//
// Sessions: when the database has a `sessions` table, tokens must carry `sid` and the session must
// be the user's, not ended and not expired; without the table (an older schema) the check is the
// user's and the permission's only.
//
// Environment: DATABASE_URL, PORT, JWKS_URL (the service's /.well-known/jwks.json), JWT_ISSUER,
// JWT_AUDIENCE, DB_POOL_SIZE, DB_STATEMENT_TIMEOUT_MS (defaults = the service's defaults).
import Fastify from 'fastify';
import { importJWK, jwtVerify } from 'jose';
import { createHash, randomUUID } from 'node:crypto';
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
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

const {
  rows: [{ sessions: WITH_SESSIONS }],
} = await pool.query(`SELECT to_regclass('sessions') IS NOT NULL AS sessions`);

// The permission is held when it is in (permissions of the active role ∪ granted) − denied.
const HOLDS = `NOT (o.ov -> 'denied' ? $2)
                AND ((o.ov -> 'granted' ? $2)
                     OR EXISTS (SELECT 1 FROM roles r
                                  JOIN role_permissions rp ON rp.role_id = r.id
                                  JOIN permissions p ON p.id = rp.permission_id
                                 WHERE r.id = u.role_id AND r.activo AND p.codigo = $2))`;
/** One row when the user exists: `live` (active user, and live session of its own) and `allowed`. */
const ALLOWED = WITH_SESSIONS
  ? {
      name: 'baseline_allowed_s',
      text: `SELECT u.activo AND s.id IS NOT NULL AS live, ${HOLDS} AS allowed
               FROM users u
               LEFT JOIN sessions s ON s.id = $3 AND s.user_id = u.id AND s.ended_at IS NULL AND s.expires_at > now()
              CROSS JOIN LATERAL (SELECT u.permission_overrides::jsonb AS ov) o
              WHERE u.id = $1`,
    }
  : {
      name: 'baseline_allowed',
      text: `SELECT u.activo AS live, ${HOLDS} AS allowed
               FROM users u
              CROSS JOIN LATERAL (SELECT u.permission_overrides::jsonb AS ov) o
              WHERE u.id = $1`,
    };
const READ_MEDIO = {
  name: 'baseline_read_medio',
  text: 'SELECT id, codigo, nombre, activo, created_at, updated_at, version FROM medios WHERE id = $1',
};
const INSERT_MEDIO = {
  name: 'baseline_insert_medio',
  text: 'INSERT INTO medios (codigo, nombre) VALUES ($1, $2) RETURNING id, codigo, nombre, activo, created_at, updated_at, version',
};
const INSERT_AUDIT = {
  name: 'baseline_insert_audit',
  text:
    'INSERT INTO audit_events (occurred_at, actor_user_id, ip, user_agent, correlation_id, action, target_type, target_id, metadata, row_hash) ' +
    "VALUES ($1, $2, $3, $4, $5, 'medio.create', 'medio', $6, $7, $8)",
};
const ME = {
  name: WITH_SESSIONS ? 'baseline_me_s' : 'baseline_me',
  text: `SELECT u.username, u.nombre, u.apellido, u.email, u.must_change_password, u.permission_overrides AS ov, r.codigo AS rol,
                u.activo ${WITH_SESSIONS ? 'AND EXISTS (SELECT 1 FROM sessions s WHERE s.id = $2 AND s.user_id = u.id AND s.ended_at IS NULL AND s.expires_at > now())' : ''} AS live,
                COALESCE((SELECT json_agg(p.codigo) FROM role_permissions rp JOIN permissions p ON p.id = rp.permission_id
                           WHERE rp.role_id = r.id AND r.activo), '[]') AS permisos
           FROM users u JOIN roles r ON r.id = u.role_id
          WHERE u.id = $1 ${WITH_SESSIONS ? '' : 'AND $2::text IS NULL'}`,
};

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

const REQUIRED_CLAIMS = WITH_SESSIONS ? ['exp', 'jti', 'sid'] : ['exp', 'jti'];

/** The bearer token: RS256 only, the published kid, iss/aud, exp, jti (and sid) required (jose refuses `crit`). */
async function verify(request) {
  const header = request.headers.authorization;
  const token = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : '';
  if (!token || token.includes(' ')) throw new HttpError(401, 'no_autenticado');
  let payload;
  try {
    ({ payload } = await jwtVerify(
      token,
      (protectedHeader) => {
        if (protectedHeader.kid !== jwk.kid) throw new Error('unknown kid');
        return publicKey;
      },
      { algorithms: ['RS256'], issuer: ISSUER, audience: AUDIENCE, requiredClaims: REQUIRED_CLAIMS },
    ));
  } catch {
    throw new HttpError(401, 'no_autenticado');
  }
  if (typeof payload.sub !== 'string' || !POSITIVE_INT.test(payload.sub) || Number(payload.sub) > 2_147_483_647)
    throw new HttpError(401, 'no_autenticado');
  if (WITH_SESSIONS && (typeof payload.sid !== 'string' || !UUID.test(payload.sid))) throw new HttpError(401, 'no_autenticado');
  return { userId: Number(payload.sub), sessionId: WITH_SESSIONS ? payload.sid.toLowerCase() : null };
}

async function authorize(request, permission) {
  const caller = await verify(request);
  const values = WITH_SESSIONS ? [caller.userId, permission, caller.sessionId] : [caller.userId, permission];
  const { rows } = await pool.query({ ...ALLOWED, values });
  if (!rows[0]?.live) throw new HttpError(401, 'no_autenticado');
  if (!rows[0].allowed) throw new HttpError(403, 'permiso_denegado');
  return caller;
}

const medioDto = (m) => ({
  id: m.id,
  codigo: m.codigo,
  nombre: m.nombre,
  activo: m.activo,
  createdAt: m.created_at.toISOString(),
  updatedAt: m.updated_at.toISOString(),
});

/** Strong entity tag: digest of the row version and of the JSON answered (docs/api.md, "ETag"). */
function withEtag(reply, version, dto) {
  const json = JSON.stringify(dto);
  const digest = createHash('sha256').update(`${version}:${json}`).digest('base64url');
  reply.header('etag', `"${digest.slice(0, 27)}"`).type('application/json; charset=utf-8');
  return json;
}

/**
 * row_hash of an audit row: SHA-256 (hex) of the RFC 8785 text of its fields (camelCase keys in
 * code-unit order, `store`, `v: 1`, the instant with six fraction digits, the metadata document).
 * For this row every value is a string, an integer or null and the metadata's keys are fixed, so
 * the canonical text is JSON.stringify in that order.
 */
function auditRowHash(occurredAt, actorUserId, ip, userAgent, correlationId, targetId, codigo, nombre) {
  const text =
    `{"action":"medio.create","actorRoleId":null,"actorUserId":${actorUserId},"correlationId":${JSON.stringify(correlationId)},` +
    `"ip":${JSON.stringify(ip)},"metadata":{"after":{"codigo":${JSON.stringify(codigo)},"nombre":${JSON.stringify(nombre)}}},` +
    `"occurredAt":"${occurredAt.toISOString().slice(0, 23)}000Z","store":"audit_events","targetId":${JSON.stringify(targetId)},` +
    `"targetType":"medio","userAgent":${JSON.stringify(userAgent)},"v":1}`;
  return createHash('sha256').update(text).digest('hex');
}

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

app.get('/api/v1/admin/medios/:id', async (request, reply) => {
  await authorize(request, MEDIOS_PERMISSION);
  const id = request.params.id;
  if (!POSITIVE_INT.test(id)) throw new HttpError(400, 'validacion');
  const { rows } = await pool.query({ ...READ_MEDIO, values: [Number(id)] });
  if (!rows[0]) throw new HttpError(404, 'no_encontrado');
  return withEtag(reply, rows[0].version, medioDto(rows[0]));
});

app.post('/api/v1/admin/medios', async (request, reply) => {
  const caller = await authorize(request, MEDIOS_PERMISSION);
  const body = request.body ?? {};
  const nombre = typeof body.nombre === 'string' ? body.nombre.trim() : '';
  if (typeof body.codigo !== 'string' || !CODIGO.test(body.codigo) || !nombre || nombre.length > 100 || Object.keys(body).length !== 2) {
    throw new HttpError(400, 'validacion');
  }
  const ua = request.headers['user-agent'];
  const userAgent = ua ? ua.slice(0, 512).toWellFormed() : null;
  const client = await pool.connect();
  let medio;
  try {
    await client.query('BEGIN');
    ({
      rows: [medio],
    } = await client.query({ ...INSERT_MEDIO, values: [body.codigo, nombre] }));
    const occurredAt = new Date();
    const targetId = String(medio.id);
    await client.query({
      ...INSERT_AUDIT,
      values: [
        occurredAt,
        caller.userId,
        request.ip,
        userAgent,
        request.id,
        targetId,
        JSON.stringify({ after: { codigo: body.codigo, nombre } }),
        auditRowHash(occurredAt, caller.userId, request.ip, userAgent, request.id, targetId, body.codigo, nombre),
      ],
    });
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    if (err.code === '23505') throw new HttpError(409, 'duplicado');
    throw err;
  } finally {
    client.release();
  }
  reply.code(201).header('location', `/api/v1/admin/medios/${medio.id}`);
  return withEtag(reply, medio.version, medioDto(medio));
});

app.get('/api/v1/auth/me', async (request) => {
  const caller = await verify(request);
  const { rows } = await pool.query({ ...ME, values: [caller.userId, caller.sessionId] });
  const u = rows[0];
  if (!u?.live) throw new HttpError(401, 'no_autenticado');
  const ov = JSON.parse(u.ov);
  const denied = new Set(ov.denied);
  return {
    id: caller.userId,
    username: u.username,
    nombre: u.nombre,
    apellido: u.apellido,
    email: u.email,
    rol: u.rol,
    mustChangePassword: u.must_change_password,
    permisos: [...new Set([...u.permisos, ...ov.granted])].filter((c) => !denied.has(c)).sort(),
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
