import { Injectable, type PipeTransform } from '@nestjs/common';
import { PathParam } from '../common/validation/path-id.js';
import { ValidationFailedError } from '../common/errors/domain-error.js';
import { sessionIdFromSid } from './token.service.js';

/** A session id path segment: a UUID (answered in lower case), else 400 `validacion`. */
@Injectable()
export class ParseSessionIdPipe implements PipeTransform<string, string> {
  transform(value: string, metadata: { data?: string }): string {
    const id = sessionIdFromSid(value);
    if (id !== undefined) return id;
    const name = metadata.data ?? 'id';
    throw new ValidationFailedError([{ field: name, message: `${name} debe ser un UUID` }]);
  }
}

/** `@PathSessionId('sessionId') id: string`: the pipe above, documented as a uuid parameter. */
export function PathSessionId(name = 'id'): ParameterDecorator {
  return PathParam(name, ParseSessionIdPipe, {
    type: 'string',
    format: 'uuid',
    description: 'A session id (the `sid` claim of its access tokens).',
  });
}
