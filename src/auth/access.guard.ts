import { type ExecutionContext, Injectable } from '@nestjs/common';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { SecurityEventsService } from '../audit/security-events.service.js';
import { RequestContext } from '../common/context/request-context.js';
import { Clock } from '../common/context/clock.js';
import { DomainError } from '../common/errors/domain-error.js';
import { takesArgument } from '../common/http/route-arguments.js';
import { throwIfQuery } from '../common/http/undeclared-query.js';
import { throwIfRefused } from '../common/validation/json-body.js';
import { ALLOW_ENDED_SESSION } from './decorators/allow-ended-session.decorator.js';
import type { AuthenticatedUser } from './decorators/current-user.decorator.js';
import { IS_PUBLIC } from './decorators/public.decorator.js';
import { QUERY_PERMISSIONS, type QueryPermission, REQUIRED_PERMISSIONS } from './decorators/require-permission.decorator.js';
import { EffectivePermissionsService } from './effective-permissions.service.js';
import { bearerTokenOf } from './jose-header.js';
import type { VerifiedToken } from './jwt.strategy.js';
import { VerifiedTokens } from './verified-tokens.js';
import { Traced } from '../observability/traced.js';

/** The request property passport sets to the strategy's VerifiedToken (getAuthenticateOptions). */
const VERIFIED_TOKEN = 'verifiedToken';

/**
 * The global, deny-by-default guard. Every route needs a valid access token unless it is
 * @Public(); the caller must exist and be active and the token's session (`sid`) must still be
 * active, and the caller must hold every permission the route declares with @RequirePermission (plus those of
 * @RequirePermissionWithQuery whose query parameter is present) — else 403 and a
 * `permission.denied` security event. Then a body the JSON parser refused is 400 (RefusedBody), and
 * so is a query string sent to an operation of `/api/v1` that declares no query parameter.
 */
@Injectable()
export class AccessGuard extends AuthGuard('jwt') {
  constructor(
    private readonly reflector: Reflector,
    private readonly permissions: EffectivePermissionsService,
    private readonly context: RequestContext,
    private readonly securityEvents: SecurityEventsService,
    private readonly clock: Clock,
    private readonly verified: VerifiedTokens,
  ) {
    super();
  }

  private readonly routes = new WeakMap<object, WeakMap<object, RouteAccess>>();

  /**
   * Where passport leaves the verified token: not on `request.user`, which holds the caller only
   * once the store confirmed the user and the session, so that a verified token of an ended session
   * or of an inactive user (401) leaves no actor on the request (the request log line's `actorId`).
   */
  override getAuthenticateOptions(): { property: typeof VERIFIED_TOKEN } {
    return { property: VERIFIED_TOKEN };
  }

  @Traced('AccessGuard.canActivate')
  override async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const request = ctx.switchToHttp().getRequest<FastifyRequest & { [VERIFIED_TOKEN]?: VerifiedToken; user?: AuthenticatedUser }>();
    const route = this.routeAccess(ctx, request);
    if (route.isPublic) {
      throwIfRefused(request.body);
      if (route.refusesQuery) throwIfQuery(request.query);
      return true;
    }

    const token = await this.verifiedToken(ctx, request);
    this.context.setTokenSubject(token.userId);
    const required = route.byQuery.length === 0 ? route.required : [...route.required, ...requiredByQuery(route.byQuery, request.query)];
    const access = await this.permissions.authorize(token.userId, token.sessionId, this.clock.now(), required);
    if (!access || !access.activo) throw unauthenticated();
    if (!access.sessionActive && !route.allowEndedSession) throw unauthenticated();

    this.context.setActor(token.userId, access.username, {
      sessionId: token.sessionId,
      required,
      endedSessionAllowed: route.allowEndedSession,
    });
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
    // a body the parser refused, or a query the operation does not take, is the next check: 400 after 401 and 403
    throwIfRefused(request.body);
    if (route.refusesQuery) throwIfQuery(request.query);
    return true;
  }

  /**
   * The request's access token, verified: recalled when this process verified the same token
   * before (VerifiedTokens), else verified by passport's strategy and remembered.
   */
  private async verifiedToken(ctx: ExecutionContext, request: FastifyRequest & { [VERIFIED_TOKEN]?: VerifiedToken }): Promise<VerifiedToken> {
    const raw = bearerTokenOf(request);
    const recalled = raw === null ? undefined : this.verified.recall(raw, Date.now());
    if (recalled) return recalled;
    await super.canActivate(ctx);
    const token = request[VERIFIED_TOKEN] as VerifiedToken;
    if (raw !== null) this.verified.remember(raw, token);
    return token;
  }

  /**
   * What the decorators of a route declare, read once per route: the metadata never changes after
   * the application starts, and reading it through the reflector on every request cost more than
   * the rest of the guard's own work.
   */
  private routeAccess(ctx: ExecutionContext, request: FastifyRequest): RouteAccess {
    const handler = ctx.getHandler();
    const controller = ctx.getClass();
    let byHandler = this.routes.get(controller);
    if (!byHandler) this.routes.set(controller, (byHandler = new WeakMap()));
    let route = byHandler.get(handler);
    if (!route) {
      const targets = [handler, controller];
      route = {
        isPublic: this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC, targets) ?? false,
        required: this.reflector.getAllAndOverride<string[] | undefined>(REQUIRED_PERMISSIONS, targets) ?? [],
        byQuery: this.reflector.getAllAndOverride<QueryPermission[] | undefined>(QUERY_PERMISSIONS, targets) ?? [],
        allowEndedSession: this.reflector.getAllAndOverride<boolean | undefined>(ALLOW_ENDED_SESSION, targets) ?? false,
        // the probes and key sets outside /api/v1 take whatever a machine appends
        refusesQuery: (request.routeOptions?.url ?? '').startsWith('/api/') && !takesArgument(controller, handler.name, RouteParamtypes.QUERY),
      };
      byHandler.set(handler, route);
    }
    return route;
  }

  override handleRequest<T>(err: unknown, user: T): T {
    if (err || !user) throw unauthenticated();
    return user;
  }
}

/** What a route's decorators declare to the guard. */
interface RouteAccess {
  isPublic: boolean;
  /** @RequirePermission */
  required: readonly string[];
  /** @RequirePermissionWithQuery */
  byQuery: readonly QueryPermission[];
  allowEndedSession: boolean;
  /** an operation of /api/v1 without a `@Query()` parameter */
  refusesQuery: boolean;
}

/** The codes of @RequirePermissionWithQuery whose query parameter the request carries. */
function requiredByQuery(declared: readonly QueryPermission[], query: unknown): string[] {
  const params = (query ?? {}) as Record<string, unknown>;
  return declared.filter((p) => params[p.param] !== undefined).map((p) => p.code);
}

export function unauthenticated(): DomainError {
  return new DomainError('no_autenticado', 'Se requiere un token de acceso válido');
}
