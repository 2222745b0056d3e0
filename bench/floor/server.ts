// The floor of the prescribed stack: the guarded read on NestJS + Fastify + passport-jwt with
// nothing of this service's own — no request context, no logging, no metrics, no security headers,
// no interceptor, no TypeORM. It answers what the baseline answers (same statement of flags, same
// read, same ETag) through Nest's router, a global guard extending @nestjs/passport's AuthGuard
// and a ParseIntPipe. Against bench/baseline/server.mjs it measures what the framework alone costs.
import 'reflect-metadata';
import {
  type CanActivate,
  Controller,
  type ExecutionContext,
  Get,
  Injectable,
  Module,
  Param,
  ParseIntPipe,
  Res,
  UnauthorizedException,
  ForbiddenException,
  NotFoundException,
} from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { AuthGuard, PassportModule, PassportStrategy } from '@nestjs/passport';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash, createPublicKey, randomUUID } from 'node:crypto';
import { ExtractJwt, Strategy } from 'passport-jwt';
import pg from 'pg';

const env = process.env;
const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: Number(env.DB_POOL_SIZE ?? 10), options: '-c TimeZone=UTC' });
const jwks = (await (await globalThis.fetch(env.JWKS_URL!)).json()) as { keys: Array<{ kid: string }> };
const publicKey = createPublicKey({ key: jwks.keys[0] as never, format: 'jwk' });

const ALLOWED = {
  name: 'floor_allowed',
  text: `SELECT u.activo AND s.id IS NOT NULL AS live,
                NOT (o.ov -> 'denied' ? $2) AND ((o.ov -> 'granted' ? $2) OR EXISTS (SELECT 1 FROM roles r
                  JOIN role_permissions rp ON rp.role_id = r.id JOIN permissions p ON p.id = rp.permission_id
                  WHERE r.id = u.role_id AND r.activo AND p.codigo = $2)) AS allowed
           FROM users u
           LEFT JOIN sessions s ON s.id = $3 AND s.user_id = u.id AND s.ended_at IS NULL AND s.expires_at > now()
          CROSS JOIN LATERAL (SELECT u.permission_overrides::jsonb AS ov) o
          WHERE u.id = $1`,
};
const READ = { name: 'floor_read', text: 'SELECT id, codigo, nombre, activo, created_at, updated_at, version FROM medios WHERE id = $1' };

@Injectable()
class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor() {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKey: publicKey as unknown as string,
      algorithms: ['RS256'],
      issuer: env.JWT_ISSUER ?? 'medios-admin-api',
      audience: env.JWT_AUDIENCE ?? 'medios-admin',
    });
  }
  validate(claims: { sub: string; sid: string }) {
    return { userId: Number(claims.sub), sessionId: claims.sid };
  }
}

@Injectable()
class Guard extends AuthGuard('jwt') implements CanActivate {
  override async canActivate(ctx: ExecutionContext): Promise<boolean> {
    await super.canActivate(ctx);
    const user = ctx.switchToHttp().getRequest<FastifyRequest & { user: { userId: number; sessionId: string } }>().user;
    const { rows } = await pool.query({ ...ALLOWED, values: [user.userId, 'administracion:medios:gestionar', user.sessionId] });
    if (!rows[0]?.live) throw new UnauthorizedException();
    if (!rows[0].allowed) throw new ForbiddenException();
    return true;
  }
}

@Controller('api/v1/admin/medios')
class MediosController {
  @Get(':id')
  async get(@Param('id', ParseIntPipe) id: number, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const { rows } = await pool.query({ ...READ, values: [id] });
    const m = rows[0];
    if (!m) throw new NotFoundException();
    const json = JSON.stringify({
      id: m.id,
      codigo: m.codigo,
      nombre: m.nombre,
      activo: m.activo,
      createdAt: m.created_at.toISOString(),
      updatedAt: m.updated_at.toISOString(),
    });
    const digest = createHash('sha256').update(`${m.version}:${json}`).digest('base64url');
    reply.header('etag', `"${digest.slice(0, 27)}"`).type('application/json; charset=utf-8');
    return json;
  }
}

@Module({ imports: [PassportModule], controllers: [MediosController], providers: [JwtStrategy, { provide: APP_GUARD, useClass: Guard }] })
class FloorModule {}

const adapter = new FastifyAdapter({ genReqId: () => randomUUID() });
adapter.getInstance().addHook('onRequest', (request, reply, done) => {
  reply.header('x-correlation-id', request.id);
  done();
});
// the bench polls it before the rounds; outside Nest, like the baseline's
adapter.getInstance().get('/health', (_request, reply) => void reply.send({ status: 'ok' }));
const app = await NestFactory.create<NestFastifyApplication>(FloorModule, adapter, { logger: ['error'] });
await app.listen(Number(env.PORT ?? 3200), '127.0.0.1');
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(
    signal,
    () =>
      void app
        .close()
        .then(() => pool.end())
        .then(() => process.exit(0)),
  );
