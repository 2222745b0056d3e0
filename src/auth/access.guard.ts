import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { SecurityEventsService } from '../audit/security-events.service.js';
import { RequestContext } from '../common/context/request-context.js';
import { Clock } from '../common/context/clock.js';
import { DomainError } from '../common/errors/domain-error.js';
import { ALLOW_ENDED_SESSION } from './decorators/allow-ended-session.decorator.js';
import type { AuthenticatedUser } from './decorators/current-user.decorator.js';
import { IS_PUBLIC } from './decorators/public.decorator.js';
import { QUERY_PERMISSIONS, type QueryPermission, REQUIRED_PERMISSIONS } from './decorators/require-permission.decorator.js';
import { EffectivePermissionsService } from './effective-permissions.service.js';
import type { VerifiedToken } from './jwt.strategy.js';
import { Traced } from '../observability/traced.js';

/**
 * The global, deny-by-default guard. Every route needs a valid access token unless it is
 * @Public(); the caller must exist and be active and the token's session (`sid`) must still be
 * active, and the caller must hold every permission the route declares with @RequirePermission (plus those of
 * @RequirePermissionWithQuery whose query parameter is present) — else 403 and a
 * `permission.denied` security event.
 */
@Injectable()
export class AccessGuard extends AuthGuard('jwt') {
  constructor(
    private readonly reflector: Reflector,
    private readonly permissions: EffectivePermissionsService,
    private readonly context: RequestContext,
    private readonly securityEvents: SecurityEventsService,
    private readonly clock: Clock,
  ) {
    super();
  }

  @Traced('AccessGuard.canActivate')
  override async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const targets = [ctx.getHandler(), ctx.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;

    await super.canActivate(ctx);
    const request = ctx.switchToHttp().getRequest<FastifyRequest & { user: VerifiedToken | AuthenticatedUser }>();
    const token = request.user as VerifiedToken;
    const required = [
      ...(this.reflector.getAllAndOverride<string[] | undefined>(REQUIRED_PERMISSIONS, targets) ?? []),
      ...requiredByQuery(this.reflector.getAllAndOverride<QueryPermission[] | undefined>(QUERY_PERMISSIONS, targets), request.query),
    ];
    const access = await this.permissions.authorize(token.userId, token.sessionId, this.clock.now(), required);
    if (!access || !access.activo) throw unauthenticated();
    if (!access.sessionActive && !this.reflector.getAllAndOverride<boolean>(ALLOW_ENDED_SESSION, targets)) throw unauthenticated();

    this.context.setActor(token.userId, access.username);
    request.user = {
      userId: token.userId,
      username: access.username,
      rol: access.rol,
      jti: token.jti,
      sessionId: token.sessionId,
      sessionActive: access.sessionActive,
    } satisfies AuthenticatedUser;

    const missing = required.find((_code, i) => !access.holds[i]);
    if (missing) {
      const endpoint = request.routeOptions?.url ?? request.url.split('?')[0];
      await this.securityEvents.record({
        action: 'permission.denied',
        result: 'failure',
        actorUserId: token.userId,
        metadata: { permission: missing, endpoint, method: request.method },
      });
      throw new DomainError('permiso_denegado', `Se requiere el permiso ${missing}`);
    }
    return true;
  }

  override handleRequest<T>(err: unknown, user: T): T {
    if (err || !user) throw unauthenticated();
    return user;
  }
}

/** The codes of @RequirePermissionWithQuery whose query parameter the request carries. */
function requiredByQuery(declared: QueryPermission[] | undefined, query: unknown): string[] {
  const params = (query ?? {}) as Record<string, unknown>;
  return (declared ?? []).filter((p) => params[p.param] !== undefined).map((p) => p.code);
}

function unauthenticated(): DomainError {
  return new DomainError('no_autenticado', 'Se requiere un token de acceso válido');
}
