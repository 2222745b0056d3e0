import type { Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import type { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';

/** Whether the handler `name` of `controller` has a parameter of this kind (`@Body()`, `@Query()`…); Nest keys its route arguments `<type>:<index>`. */
export function takesArgument(controller: Type, name: string, type: RouteParamtypes): boolean {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) as Record<string, unknown> | undefined) ?? {};
  return Object.keys(args).some((key) => key.split(':')[0] === String(type));
}
