import type { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { buildOpenApiDocument } from '../../../src/common/swagger/swagger.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
export const MUTATING: ReadonlySet<HttpMethod> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface SchemaObject {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number | boolean;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  multipleOf?: number;
  nullable?: boolean;
  items?: SchemaObject;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  allOf?: SchemaObject[];
  oneOf?: SchemaObject[];
  anyOf?: SchemaObject[];
  example?: unknown;
  additionalProperties?: boolean | SchemaObject;
}

export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: SchemaObject;
}

export interface Operation {
  /** `METHOD path`, e.g. `POST /api/v1/admin/medios/{id}/deactivate` */
  key: string;
  method: HttpMethod;
  path: string;
  public: boolean;
  parameters: ParameterObject[];
  /** the JSON request body's schema, $refs resolved at the top level */
  body?: SchemaObject;
  bodyRequired: boolean;
  permission?: string;
}

/** The running app's OpenAPI document (the same as /docs/openapi.json). */
export function openApiOf(app: INestApplication): OpenAPIObject {
  return buildOpenApiDocument(app);
}

/** Every operation of the document, in path order. */
export function operationsOf(doc: OpenAPIObject): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = (item as Record<string, any>)[method.toLowerCase()];
      if (!op) continue;
      const content = op.requestBody?.content?.['application/json'];
      ops.push({
        key: `${method} ${path}`,
        method,
        path,
        public: !op.security || op.security.length === 0,
        parameters: (op.parameters ?? []).map((p: ParameterObject) => ({ ...p, schema: p.schema ? resolve(doc, p.schema) : undefined })),
        body: content?.schema ? resolve(doc, content.schema) : undefined,
        bodyRequired: !!op.requestBody?.required,
        permission: op['x-required-permission'],
      });
    }
  }
  return ops;
}

/** The operations that change state: POST, PUT, PATCH, DELETE. */
export function mutatingOperations(doc: OpenAPIObject): Operation[] {
  return operationsOf(doc).filter((o) => MUTATING.has(o.method));
}

/** Resolves `#/components/schemas/X` references (recursively, through properties, items and allOf). */
export function resolve(doc: OpenAPIObject, schema: SchemaObject, depth = 0): SchemaObject {
  if (depth > 8) return schema;
  let s = schema;
  if (s.$ref) {
    const name = s.$ref.replace('#/components/schemas/', '');
    s = (doc.components?.schemas?.[name] ?? {}) as SchemaObject;
  }
  if (s.allOf?.length) {
    const merged: SchemaObject = { type: 'object', properties: {}, required: [] };
    for (const part of s.allOf.map((p) => resolve(doc, p, depth + 1))) {
      Object.assign(merged.properties!, part.properties ?? {});
      merged.required!.push(...(part.required ?? []));
      if (part.type && part.type !== 'object') Object.assign(merged, part);
    }
    s = merged;
  }
  const out: SchemaObject = { ...s };
  if (s.properties) out.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, resolve(doc, v, depth + 1)]));
  if (s.items) out.items = resolve(doc, s.items, depth + 1);
  if (s.oneOf) out.oneOf = s.oneOf.map((x) => resolve(doc, x, depth + 1));
  if (s.anyOf) out.anyOf = s.anyOf.map((x) => resolve(doc, x, depth + 1));
  return out;
}
