import { Param, type PipeTransform, type Type } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { MAX_ID } from './fields.js';
import { ParseIdPipe } from './parse-id.pipe.js';

/** How a path parameter is documented. */
export interface PathParamDoc {
  type: 'integer' | 'string';
  format?: string;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  maxLength?: number;
  description: string;
  example?: string | number;
}

/** A path parameter read through `pipe` and documented on its route as `doc` says. */
export function PathParam(name: string, pipe: Type<PipeTransform>, doc: PathParamDoc): ParameterDecorator {
  const param = Param(name, pipe);
  return (target, propertyKey, index) => {
    param(target, propertyKey, index);
    if (propertyKey === undefined) return;
    const descriptor = Object.getOwnPropertyDescriptor(target, propertyKey);
    if (descriptor) ApiParam({ name, ...doc })(target, propertyKey, descriptor);
  };
}

/**
 * A path id (`@PathId() id: number`, `@PathId('medioId')`): ParseIdPipe on the raw segment (400
 * `validacion` unless a positive 32-bit integer in decimal), documented as an integer parameter.
 */
export function PathId(name = 'id'): ParameterDecorator {
  return PathParam(name, ParseIdPipe, { type: 'integer', minimum: 1, maximum: MAX_ID, description: 'A positive integer id.', example: 1 });
}
