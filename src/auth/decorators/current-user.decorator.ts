import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/**
 * The authenticated caller, as the guard resolved it from the token and the store. The guard asks
 * the store only about the permissions the route needs; what needs the caller's whole set loads it
 * with EffectivePermissionsService.resolve.
 */
export interface AuthenticatedUser {
  userId: number;
  username: string;
  rol: string;
  jti: string;
  /** the token's `sid`: the session (refresh-token family) it belongs to */
  sessionId: string;
  /** always true, except on routes marked @AllowEndedSession() when the session has ended */
  sessionActive: boolean;
}

export const CurrentUser = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthenticatedUser => {
  return ctx.switchToHttp().getRequest<{ user: AuthenticatedUser }>().user;
});
