import type { OpenAPIObject } from '@nestjs/swagger';
import { isFiscalPath } from '../errors/error-renderer.js';

// @nestjs/swagger exports only the document type; the parts are derived from it.
type OperationObject = NonNullable<OpenAPIObject['paths'][string]['get']>;
type ResponseObject = Exclude<NonNullable<OperationObject['responses'][string]>, { $ref: string }>;
type HeaderObject = Exclude<NonNullable<ResponseObject['headers']>[string], { $ref: string }>;
type ReferenceObject = { $ref: string };

/**
 * What the decorators cannot say, applied once over the generated document: the response headers
 * every operation shares, `security: []` on public operations, the answers any operation may give
 * whatever its handler does (a refused body, a fault of the service), integer types, the examples
 * of optional query parameters, and the tag catalog. Kept out of the controllers so each rule lives in one place and a new operation gets it
 * without a decorator.
 */

/**
 * The JSON numbers of the API that are not integers: money and rates (stored as exact decimals).
 * Every other number — ids, codes, counts, levels, pages — is an integer, and the document says
 * so (`@ApiProperty()` on a `number` says only `number`). The e2e test of the document checks
 * this list against the entities' decimal columns.
 */
export const DECIMAL_FIELDS: ReadonlySet<string> = new Set(['monto', 'porcentaje', 'alicuota']);

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
  'Cache-Control': {
    description:
      'Every answer of `/api/v1` and of the probes, and every error answer: its content is personal data or the state of one instant, never to be stored by a cache.',
    schema: { type: 'string', enum: ['no-store'] },
  },
  'Cache-Control-Cacheable': {
    description: 'A published key set: keys change only when an operator rotates them, and a verifier may keep them for 5 minutes.',
    schema: { type: 'string', enum: ['public, max-age=300'] },
  },
  'WWW-Authenticate': {
    description: 'How to authenticate (RFC 6750): a bearer access token, from `POST /api/v1/auth/login`.',
    schema: { type: 'string', example: 'Bearer realm="medios-admin-api"' },
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
  return operationsByPath(doc).map(([, op]) => op);
}

function operationsByPath(doc: OpenAPIObject): Array<[string, OperationObject]> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    HTTP_METHODS.map((m) => item[m]).flatMap((op): Array<[string, OperationObject]> => (op ? [[path, op]] : [])),
  );
}

/** Adds the header (as components.headers[component]) unless the operation's answer already declares it (a decorator wins). */
function addHeader(response: ResponseObject, name: string, component = name): void {
  const existing = Object.keys(response.headers ?? {}).map((h) => h.toLowerCase());
  if (existing.includes(name.toLowerCase())) return;
  response.headers = { ...response.headers, [name]: ref(component) };
}

/** `type: number` → `integer` on every schema property and parameter not named in DECIMAL_FIELDS. */
function declareIntegers(doc: OpenAPIObject): void {
  const visit = (schema: unknown, name: string | undefined): void => {
    if (!schema || typeof schema !== 'object') return;
    const s = schema as { type?: string; properties?: Record<string, unknown>; items?: unknown };
    if (s.type === 'number' && name !== undefined && !DECIMAL_FIELDS.has(name)) s.type = 'integer';
    for (const [property, child] of Object.entries(s.properties ?? {})) visit(child, property);
    visit(s.items, name);
  };
  for (const schema of Object.values(doc.components?.schemas ?? {})) {
    if (!('$ref' in schema)) for (const [property, child] of Object.entries(schema.properties ?? {})) visit(child, property);
  }
  for (const op of operations(doc)) {
    for (const parameter of op.parameters ?? []) if (!('$ref' in parameter)) visit(parameter.schema, parameter.name);
  }
}

/**
 * Answers any operation may give whatever its handler does, declared once: the refusals of a body
 * the service does not read (413, 415: before any validation; 400: a body or a query string sent to
 * an operation that takes none), and the faults of the service itself (500; 503 while its database refuses
 * connections, its password-hashing queue is full or it shuts down, with Retry-After).
 */
const SHARED_ANSWERS = [
  {
    status: 400,
    name: 'BodyNotAccepted',
    code: 'validacion',
    description:
      'The operation takes no body and no query parameter, and the request carries one (`validacion`, `errors[].code` `whitelistValidation` for a property or a parameter): as a body, none, an empty one, `{}` or `null` are accepted.',
    fiscal:
      'The operation takes no body and no query parameter, and the request carries one (`validacion`, its `message` naming the property or parameter): as a body, none, an empty one, `{}` or `null` are accepted.',
    detail: 'Esta operación no lleva cuerpo',
    on: 'bodiless',
  },
  {
    status: 400,
    name: 'QueryNotAccepted',
    code: 'validacion',
    description:
      'The operation takes no query parameter, and the request carries one (`validacion`, `errors[].code` `whitelistValidation`): `asOf` is read only by the operations that declare it.',
    fiscal: 'The operation takes no query parameter, and the request carries one (`validacion`, its `message` naming the parameter).',
    detail: 'Esta operación no lleva parámetros de consulta',
    on: 'queryless',
  },
  {
    status: 413,
    name: 'PayloadTooLarge',
    code: 'payload_demasiado_grande',
    description: 'The body is over the limit: 16 KiB on `/api/v1/auth/*`, 1 MiB elsewhere (`payload_demasiado_grande`).',
    detail: 'El cuerpo de la solicitud supera el tamaño máximo',
    on: 'body',
  },
  {
    status: 415,
    name: 'UnsupportedMediaType',
    code: 'tipo_de_contenido_no_soportado',
    description:
      'The body is not `application/json` in UTF-8, or comes in a `Content-Encoding` other than `identity` (`tipo_de_contenido_no_soportado`).',
    detail: 'Tipo de contenido no soportado; use application/json',
    on: 'body',
  },
  {
    status: 500,
    name: 'ServerError',
    code: 'error_interno',
    description: 'A fault of the service (`error_interno`); nothing of the request was kept. Its correlation id finds the logged error.',
    detail: 'Error interno del servidor',
    on: 'all',
  },
  {
    status: 503,
    name: 'ServiceUnavailable',
    code: 'servicio_no_disponible',
    description:
      'The database refuses connections, the password-hashing queue is full, or the service is shutting down (`servicio_no_disponible`); retry after `Retry-After` seconds.',
    detail: 'El servicio no está disponible en este momento',
    on: 'all',
  },
] as const;

type SharedAnswer = (typeof SHARED_ANSWERS)[number];

/** Appended to the 400 an operation without query parameters declares itself (the fiscal shape has no `errors` list). */
const QUERY_RULE = 'A query parameter, which this operation takes none of, is 400 `validacion` too (`errors[].code` `whitelistValidation`).';
const FISCAL_QUERY_RULE = 'A query parameter, which this operation takes none of, is 400 `validacion` too (its `message` names it).';

const STATUS_TITLES: Record<SharedAnswer['status'], string> = {
  400: 'Bad Request',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** components.responses of the shared answers, in both error shapes (`Fiscal…` for `{error, message}`). */
function sharedResponses(): Record<string, ResponseObject> {
  return Object.fromEntries(
    SHARED_ANSWERS.flatMap((r) => {
      const headers: Record<string, ReferenceObject> = { 'X-Correlation-Id': ref('X-Correlation-Id'), 'Cache-Control': ref('Cache-Control') };
      if (r.status === 503) headers['Retry-After'] = ref('Retry-After');
      return [
        [
          r.name,
          {
            description: r.description,
            headers,
            content: {
              'application/problem+json': {
                schema: { $ref: '#/components/schemas/ProblemDetailsDto' },
                example: {
                  type: 'about:blank',
                  title: STATUS_TITLES[r.status],
                  status: r.status,
                  detail: r.detail,
                  instance: '/api/v1/…',
                  code: r.code,
                  correlationId: '0f8fad5b-d9cb-469f-a165-70867728950e',
                },
              },
            },
          },
        ],
        [
          `Fiscal${r.name}`,
          {
            description: 'fiscal' in r ? r.fiscal : r.description,
            headers,
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/FiscalErrorDto' }, example: { error: r.code, message: r.detail } },
            },
          },
        ],
      ];
    }),
  );
}

/**
 * The shared answers on the operations they concern, in the error shape of the route: 413 and
 * 415 on every operation a body can be sent to (POST, PUT, PATCH, DELETE: one that takes none
 * refuses a non-JSON one the same way), 400 on those of them that take none and on every operation
 * of /api/v1 that takes no query parameter, 500 and 503 on all.
 * An answer the operation's decorators already declare is kept.
 */
function declareSharedAnswers(doc: OpenAPIObject): void {
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const takesBody = method === 'post' || method === 'put' || method === 'patch' || method === 'delete';
      const prefix = isFiscalPath(path) ? 'Fiscal' : '';
      for (const r of SHARED_ANSWERS) {
        const applies =
          r.on === 'all' ||
          (takesBody && (r.on === 'body' || (r.on === 'bodiless' && !op.requestBody))) ||
          (r.on === 'queryless' && path.startsWith('/api/') && !(op.parameters ?? []).some((p) => !('$ref' in p) && p.in === 'query'));
        if (!applies) continue;
        const own = op.responses[String(r.status)];
        // the operation's own 400 (a path value it refuses) says the query rule too
        const rule = prefix ? FISCAL_QUERY_RULE : QUERY_RULE;
        if (r.on === 'queryless' && own && !('$ref' in own) && !own.description.includes(rule))
          own.description = `${own.description.trimEnd()} ${rule}`;
        op.responses[String(r.status)] ??= { $ref: `#/components/responses/${prefix}${r.name}` };
      }
    }
  }
}

/**
 * An optional query parameter (a filter, `sort`, `asOf`) carries its example in its description,
 * not as `example`: Swagger UI's "Try it out" fills a parameter with its example and sends it, so
 * a list came back filtered by a made-up value and a read by id asked for the past. Path
 * parameters and required query parameters keep theirs: a request needs a value for them.
 */
function describeOptionalQueryExamples(doc: OpenAPIObject): void {
  for (const op of operations(doc)) {
    for (const parameter of op.parameters ?? []) {
      if ('$ref' in parameter || parameter.in !== 'query' || parameter.required) continue;
      const schema = parameter.schema && !('$ref' in parameter.schema) ? parameter.schema : undefined;
      const example: unknown = parameter.example ?? schema?.example;
      if (example === undefined) continue;
      delete parameter.example;
      if (schema) delete schema.example;
      const value = `\`${typeof example === 'string' ? example : JSON.stringify(example)}\``;
      if (parameter.description?.includes(value)) continue; // the description shows it already
      parameter.description = parameter.description ? `${parameter.description.trimEnd()} Example: ${value}.` : `Example: ${value}.`;
    }
  }
}

/** The component schemas `roots` reference, themselves included, through any depth of `$ref`. */
function schemasReachedFrom(doc: OpenAPIObject, roots: unknown[]): Set<string> {
  const reached = new Set<string>();
  const pending = [...roots];
  while (pending.length) {
    const node = pending.pop();
    if (!node || typeof node !== 'object') continue;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
        const name = value.slice('#/components/schemas/'.length);
        if (!reached.has(name)) {
          reached.add(name);
          pending.push(doc.components?.schemas?.[name]);
        }
      } else pending.push(value);
    }
  }
  return reached;
}

/**
 * `additionalProperties: false` on the object schemas of request bodies: the service refuses a
 * property an operation does not take (400 `whitelistValidation`), and a client validating against
 * the document should refuse it too. Left off schemas that answers use as well, so that a property
 * added to an answer later does not break a client that validates what it receives.
 */
function closeRequestBodies(doc: OpenAPIObject): void {
  const bodies: unknown[] = [];
  const answers: unknown[] = [];
  for (const op of operations(doc)) {
    bodies.push(op.requestBody);
    answers.push(op.responses);
  }
  const answered = schemasReachedFrom(doc, answers);
  for (const name of schemasReachedFrom(doc, bodies)) {
    const schema = doc.components?.schemas?.[name] as { type?: string; properties?: object; additionalProperties?: unknown } | undefined;
    if (schema && schema.type === 'object' && schema.properties && !answered.has(name) && schema.additionalProperties === undefined) {
      schema.additionalProperties = false;
    }
  }
}

export function applyDocumentRules(doc: OpenAPIObject): OpenAPIObject {
  const shared = sharedResponses();
  doc.components = {
    ...doc.components,
    headers: { ...doc.components?.headers, ...SHARED_HEADERS },
    responses: { ...doc.components?.responses, ...shared },
  };
  declareIntegers(doc);
  closeRequestBodies(doc);
  describeOptionalQueryExamples(doc);
  declareSharedAnswers(doc);
  // only the shared answers some operation uses (every route of one shape may declare its own 400)
  const referenced = JSON.stringify(doc.paths);
  for (const name of Object.keys(shared)) {
    if (!referenced.includes(`"#/components/responses/${name}"`)) delete doc.components.responses?.[name];
  }
  const used = new Set<string>();
  for (const [path, op] of operationsByPath(doc)) {
    // No global security requirement exists, so an operation without one is public (@Public):
    // say so explicitly instead of leaving readers and linters to guess.
    if (!op.security) op.security = [];
    for (const tag of op.tags ?? []) used.add(tag);
    for (const [status, response] of Object.entries(op.responses)) {
      if (!response || '$ref' in response) continue;
      addHeader(response, 'X-Correlation-Id');
      // the key sets' successful answers may be cached; anything else, errors of the key sets included, is no-store
      if (path.startsWith('/.well-known/') && status.startsWith('2')) addHeader(response, 'Cache-Control', 'Cache-Control-Cacheable');
      else addHeader(response, 'Cache-Control');
      if (status === '201') addHeader(response, 'Location');
      if (status === '429' || status === '503') addHeader(response, 'Retry-After');
      // a guarded operation's 401 (no_autenticado) carries the bearer challenge
      if (status === '401' && op.security.length) addHeader(response, 'WWW-Authenticate');
    }
  }
  const known = Object.keys(TAGS);
  const tags = [...known, ...[...used].filter((t) => !known.includes(t)).sort()]
    .filter((t) => used.has(t))
    .map((name) => ({ name, ...(TAGS[name] ? { description: TAGS[name] } : {}) }));
  doc.tags = tags;
  return doc;
}
