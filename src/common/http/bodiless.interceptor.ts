import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { type FieldError, ValidationFailedError } from '../errors/domain-error.js';
import { unknownFieldErrors } from '../validation/messages.js';

/**
 * Guards a mutating route that takes no body (deactivate, reactivate, logout, a password reset,
 * DELETE): it accepts none, an empty one sent as `application/json`, `{}` or `null`, and refuses
 * anything else with 400 `validacion` — the whitelisting rule of every other body, so a property
 * sent by mistake (`{"activo": false}` to a reactivate) never passes silently. Bound by
 * bindRouteInterceptors to every such route, ahead of its transaction.
 */
@Injectable()
export class BodilessInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const body: unknown = context.switchToHttp().getRequest<{ body?: unknown }>().body;
    const problem = bodyProblem(body);
    if (problem) throw new ValidationFailedError(problem, 'Esta operación no lleva cuerpo');
    return next.handle();
  }
}

/** Why a bodiless operation refuses this parsed body; undefined when it carries nothing. */
export function bodyProblem(body: unknown): FieldError[] | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body !== 'object' || Array.isArray(body)) {
    return [{ field: 'body', code: 'isEmpty', message: 'esta operación no lleva cuerpo; envíe ninguno o {}' }];
  }
  const keys = Object.keys(body);
  if (keys.length === 0) return undefined;
  return unknownFieldErrors(keys);
}
