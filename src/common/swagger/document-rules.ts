import type { OpenAPIObject } from '@nestjs/swagger';

// @nestjs/swagger exports only the document type; the parts are derived from it.
type OperationObject = NonNullable<OpenAPIObject['paths'][string]['get']>;
type ResponseObject = Exclude<NonNullable<OperationObject['responses'][string]>, { $ref: string }>;
type HeaderObject = Exclude<NonNullable<ResponseObject['headers']>[string], { $ref: string }>;
type ReferenceObject = { $ref: string };

/**
 * What the decorators cannot say, applied once over the generated document: the response headers
 * every operation shares, `security: []` on public operations, and the tag catalog. Kept out of the controllers so each rule lives in
 * one place and a new operation gets it without a decorator.
 */

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

/** Response headers shared by many answers, declared once under components.headers. */
export const SHARED_HEADERS: Record<string, HeaderObject> = {
  'X-Correlation-Id': {
    description:
      "The request's correlation id: the caller's `X-Correlation-Id` when it is a GUID, otherwise one the service generated. Also in logs, audit events and error bodies.",
    schema: { type: 'string', format: 'uuid' },
  },
  Location: {
    description: 'The path of the created resource (relative to the server root).',
    schema: { type: 'string', example: '/api/v1/admin/medios/7' },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', minimum: 0, example: 60 },
  },
};

/** Tag descriptions, in the order Swagger UI shows them. */
const TAGS: Record<string, string> = {
  auth: 'Sign-in, token refresh, logout, the current user and the public signing keys.',
  users: 'Back-office users, their permission overrides and password resets.',
  roles: 'Roles, their permission sets and the permission catalog.',
  audit: 'The audit trail (keyset-paged).',
  medios: 'Media outlets.',
  secciones: 'Sections of a medio.',
  'puntos de venta': 'Points of sale of a medio (AFIP numbering).',
  fiscal: 'VAT types, gross-income tax per provincia and the provincias; errors are `{error, message}`.',
  rubros: 'The category tree.',
  'product-types': 'Product types.',
  products: 'Products.',
  prices: 'The forward-only price history of a product.',
  health: 'Probes for Kubernetes and operators (public).',
};

const ref = (name: string): ReferenceObject => ({ $ref: `#/components/headers/${name}` });

function operations(doc: OpenAPIObject): OperationObject[] {
  return Object.values(doc.paths).flatMap((item) => HTTP_METHODS.map((m) => item[m]).filter((op): op is OperationObject => op !== undefined));
}

/** Adds the header unless the operation's answer already declares it (a decorator wins). */
function addHeader(response: ResponseObject, name: string): void {
  const existing = Object.keys(response.headers ?? {}).map((h) => h.toLowerCase());
  if (existing.includes(name.toLowerCase())) return;
  response.headers = { ...response.headers, [name]: ref(name) };
}

export function applyDocumentRules(doc: OpenAPIObject): OpenAPIObject {
  doc.components = { ...doc.components, headers: { ...doc.components?.headers, ...SHARED_HEADERS } };
  const used = new Set<string>();
  for (const op of operations(doc)) {
    // No global security requirement exists, so an operation without one is public (@Public):
    // say so explicitly instead of leaving readers and linters to guess.
    if (!op.security) op.security = [];
    for (const tag of op.tags ?? []) used.add(tag);
    for (const [status, response] of Object.entries(op.responses)) {
      if (!response || '$ref' in response) continue;
      addHeader(response, 'X-Correlation-Id');
      if (status === '201') addHeader(response, 'Location');
      if (status === '429' || status === '503') addHeader(response, 'Retry-After');
    }
  }
  const known = Object.keys(TAGS);
  const tags = [...known, ...[...used].filter((t) => !known.includes(t)).sort()]
    .filter((t) => used.has(t))
    .map((name) => ({ name, ...(TAGS[name] ? { description: TAGS[name] } : {}) }));
  doc.tags = tags;
  return doc;
}
