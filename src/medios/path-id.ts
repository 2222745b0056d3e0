import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { ParseIdPipe } from '../common/validation/parse-id.pipe.js';

const rawPathParam = createParamDecorator((name: string, ctx: ExecutionContext): unknown => {
  return ctx.switchToHttp().getRequest<{ params?: Record<string, unknown> }>().params?.[name];
});

/**
 * A path id checked by ParseIdPipe on the raw path segment (400 `validacion` unless a positive
 * 32-bit integer written in decimal), documented in OpenAPI as an integer path parameter.
 *
 * Why not `@Param('id', ParseIdPipe) id: number`: the global ValidationPipe (transform: true)
 * runs first and turns a `number` path parameter into `+value`, so ParseIdPipe receives a number
 * and rejects every id. A custom parameter decorator is left alone by the ValidationPipe
 * (validateCustomDecorators is off). Once ParseIdPipe or the ValidationPipe handle this in
 * src/common, this decorator can be replaced by `@Param(name, ParseIdPipe)`.
 */
export function PathId(name = 'id'): ParameterDecorator {
  const param = rawPathParam(name, ParseIdPipe);
  return (target, propertyKey, index) => {
    param(target, propertyKey, index);
    if (propertyKey === undefined) return;
    const descriptor = Object.getOwnPropertyDescriptor(target, propertyKey);
    if (descriptor) ApiParam({ name, type: 'integer', description: 'A positive integer id.', example: 1 })(target, propertyKey, descriptor);
  };
}
