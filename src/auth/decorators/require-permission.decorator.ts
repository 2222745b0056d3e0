import type { Permission } from '../permissions.js';
import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension } from '@nestjs/swagger';
import { ApiErrors } from '../../common/swagger/problem.dto.js';
import { BEARER_AUTH } from '../../common/swagger/swagger.js';

export const REQUIRED_PERMISSIONS = 'requiredPermissions';

/**
 * Declares the permission(s) a route needs (all of them). The global guard enforces it on every
 * request from the store, and the same decorator documents it in OpenAPI (security scheme and
 * `x-required-permission`; the document builder also names it in the description).
 */
export function RequirePermission(...codes: Permission[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(REQUIRED_PERMISSIONS, codes),
    ApiBearerAuth(BEARER_AUTH),
    ApiExtension('x-required-permission', codes.length === 1 ? codes[0] : codes),
    ApiErrors(401, 403),
  );
}

export const QUERY_PERMISSIONS = 'queryPermissions';

/** A permission a route needs only when the request carries a given query parameter. */
export interface QueryPermission {
  param: string;
  code: string;
}

/**
 * Declares a permission the route needs in addition to its own, only when the request carries
 * query parameter `param` (point-in-time reads: `asOf` also needs `administracion:auditoria:ver`).
 * The global guard enforces it exactly like @RequirePermission (403 and a `permission.denied`
 * security event naming the missing code); OpenAPI shows it as `x-required-permission-with-query`.
 */
export function RequirePermissionWithQuery(param: string, code: Permission): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(QUERY_PERMISSIONS, [{ param, code }] satisfies QueryPermission[]),
    ApiExtension('x-required-permission-with-query', { [param]: code }),
  );
}

/** A route that needs only a valid access token (no particular permission). */
export function Authenticated(): MethodDecorator & ClassDecorator {
  return applyDecorators(ApiBearerAuth(BEARER_AUTH), ApiErrors(401));
}
