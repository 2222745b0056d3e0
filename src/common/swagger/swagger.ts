import type { INestApplication } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { applyDocumentRules } from './document-rules.js';
import { VERSIONED_EXTENSION } from '../versioning/versioned.decorator.js';

export const BEARER_AUTH = 'bearer';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Medios — back-office administration API')
    .setDescription(
      [
        'Sign-in, users, roles and permissions, medios, secciones and puntos de venta, fiscal tables,',
        'the rubro tree, products and prices, and an audit trail.',
        '',
        'Every protected operation takes a bearer access token from `POST /api/v1/auth/login`.',
        'Its required permission is named in its description and as `x-required-permission`.',
        'Errors are `application/problem+json` documents with a stable `code` and the `correlationId`,',
        'except on `/api/v1/admin/fiscal/*`, which answer `{error, message}`.',
        'Every answer carries `X-Correlation-Id` (yours when it is a GUID).',
        'Text lengths (`maxLength`) count UTF-16 code units, as a browser `maxlength` does: most emoji count 2.',
        '',
        'Lost updates are refused: single-resource reads and the answers of creates and changes carry a strong `ETag` (prices, which never change, carry none);',
        'send it back as `If-Match` on a change and a stale one answers 412 `version_obsoleta` with nothing changed.',
      ].join('\n'),
    )
    .setVersion('1.0.0')
    .addServer('/', 'The root this service is served from: every path already carries its prefix (`/api/v1`, `/health`).')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, BEARER_AUTH)
    .build();
  const document = SwaggerModule.createDocument(app, config);
  return sortDocument(applyDocumentRules(documentVersioning(namePermissions(document))));
}

/** Swagger UI at /docs, the document at /docs/openapi.json. */
export function setupSwagger(app: INestApplication): void {
  redirectIndexPage(app.getHttpAdapter().getInstance() as FastifyInstance);
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs/openapi.json',
    yamlDocumentUrl: 'docs/openapi.yaml',
    // the token pasted into "Authorize" stays in the page's memory: persisted, Swagger UI would
    // keep it in localStorage, where it outlives the tab and any script of the origin can read it
    swaggerOptions: { persistAuthorization: false, displayRequestDuration: true },
    customSiteTitle: 'Medios admin API',
  });
}

/**
 * /docs/index.html answers a redirect to /docs. @nestjs/swagger serves it the page of /docs, whose
 * assets are relative to the path's last segment (`./docs/swagger-ui.css`): from /docs/index.html
 * they resolve under /docs/docs/, which it serves only when the UI is mounted below its own last
 * segment (not at /docs), so the page came up blank. The route is the library's; its handler is
 * swapped as the route is registered, since registering the path first would make its own fail.
 */
function redirectIndexPage(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route) => {
    if (route.url !== '/docs/index.html') return;
    route.handler = (request, reply) => {
      const query = request.url.indexOf('?');
      return reply.redirect(query === -1 ? '/docs' : `/docs${request.url.slice(query)}`, 301);
    };
  });
}

/** Names each operation's required permission in its description too (docs/api.md "Permissions"). */
function namePermissions(doc: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item) as Array<{ description?: string; 'x-required-permission'?: string | string[] } | undefined>) {
      const required = op?.['x-required-permission'];
      if (!op || !required) continue;
      const codes = (Array.isArray(required) ? required : [required]).map((c) => `\`${c}\``).join(' and ');
      const line = `Required permission: ${codes}.`;
      if (!op.description?.includes(line)) op.description = op.description ? `${op.description}\n\n${line}` : line;
    }
  }
  return doc;
}

type Operation = {
  parameters?: Array<Record<string, unknown>>;
  responses?: Record<string, { description?: string; headers?: Record<string, unknown>; content?: Record<string, { example?: unknown }> }>;
  [VERSIONED_EXTENSION]?: 'read' | 'change';
};

const ETAG_HEADER = {
  description: 'Strong entity tag of the representation in this answer; send it back as `If-Match` to change the resource.',
  schema: { type: 'string', example: '"hR3tq0Wm2bZs1N8fJ6kXo9c4VdA"' },
};

const IF_MATCH = {
  name: 'If-Match',
  in: 'header' as const,
  required: false,
  description:
    'The `ETag` of the representation the change is based on (or `*`: any existing version). A stale or blank one answers 412 `version_obsoleta` and changes nothing. Absent: the change applies whatever the current version.',
  schema: { type: 'string' as const },
};

/**
 * Renders the `@Versioned` mark of an operation (common/versioning): the `ETag` header on its
 * success answers and, on a change, the optional `If-Match` header and the 412 answer — in the
 * error shape of the operation's own 404 (problem details, or `{error, message}` on fiscal routes).
 */
function documentVersioning(doc: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item) as Array<Operation | undefined>) {
      const kind = op?.[VERSIONED_EXTENSION];
      if (!op || !kind) continue;
      delete op[VERSIONED_EXTENSION];
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (/^2\d\d$/.test(status)) response.headers = { ...response.headers, ETag: { $ref: '#/components/headers/ETag' } };
      }
      if (kind !== 'change') continue;
      op.parameters = [...(op.parameters ?? []), { $ref: '#/components/parameters/IfMatch' }];
      const template = op.responses?.['404'];
      const description =
        'The resource changed since the `ETag` sent in `If-Match` was read (`version_obsoleta`): nothing was changed; read it again.';
      const content = Object.fromEntries(
        Object.entries(template?.content ?? {}).map(([type, media]) => [type, { ...media, example: versionConflictExample(media.example) }]),
      );
      op.responses = { ...op.responses, '412': { description, content } };
    }
  }
  doc.components = {
    ...doc.components,
    headers: { ...doc.components?.headers, ETag: ETAG_HEADER },
    parameters: { ...doc.components?.parameters, IfMatch: IF_MATCH },
  };
  return doc;
}

function versionConflictExample(template: unknown): unknown {
  const message = 'El recurso cambió desde que se leyó: vuelva a leerlo (GET) y repita el cambio con el ETag nuevo en If-Match';
  if (template && typeof template === 'object' && 'error' in template) return { error: 'version_obsoleta', message };
  return { ...(template as object), title: 'Precondition Failed', status: 412, detail: message, code: 'version_obsoleta' };
}

/** Stable key order, so the committed openapi.json only changes when the API does. */
function sortDocument(doc: OpenAPIObject): OpenAPIObject {
  const paths = Object.fromEntries(Object.entries(doc.paths).sort(([a], [b]) => a.localeCompare(b)));
  const schemas = doc.components?.schemas
    ? Object.fromEntries(Object.entries(doc.components.schemas).sort(([a], [b]) => a.localeCompare(b)))
    : undefined;
  return { ...doc, paths, components: { ...doc.components, ...(schemas ? { schemas } : {}) } };
}
