import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/** The authenticated caller, as the guard resolved it from the token and the store. */
export interface AuthenticatedUser {
  userId: number;
  username: string;
  rol: string;
  jti: string;
  /** the token's `sid`: the session (refresh-token family) it belongs to */
  sessionId: string;
  /** always true, except on routes marked @AllowEndedSession() when the session has ended */
  sessionActive: boolean;
  permisos: ReadonlySet<string>;
}

export const CurrentUser = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthenticatedUser => {
  return ctx.switchToHttp().getRequest<{ user: AuthenticatedUser }>().user;
});
