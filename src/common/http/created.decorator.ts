import { applyDecorators, SetMetadata, type Type } from '@nestjs/common';
import { ApiCreatedResponse } from '@nestjs/swagger';

export const CREATED_LOCATION = 'createdLocation';

/** The path of a created resource, from the handler's answer. */
export type LocationOf<T> = (created: T) => string;

/**
 * A create: answers 201 with the new resource as `type` and a `Location` header naming it (the
 * header comes from LocationInterceptor, so the handler returns the body only). `description`
 * documents the 201 answer; the document rules declare its `Location` header.
 */
export function Created<T>(type: Type<T>, location: LocationOf<T>, description: string): MethodDecorator {
  return applyDecorators(SetMetadata(CREATED_LOCATION, location), ApiCreatedResponse({ type, description }));
}
