import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/** The authenticated caller, as the guard resolved it from the token and the store. */
export interface AuthenticatedUser {
  userId: number;
  username: string;
  rol: string;
  jti: string;
  permisos: ReadonlySet<string>;
}

export const CurrentUser = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthenticatedUser => {
  return ctx.switchToHttp().getRequest<{ user: AuthenticatedUser }>().user;
});
