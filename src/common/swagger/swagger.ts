import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { applyDocumentRules } from './document-rules.js';

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
      ].join('\n'),
    )
    .setVersion('1.0.0')
    .addServer('/', 'The root this service is served from: every path already carries its prefix (`/api/v1`, `/health`).')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, BEARER_AUTH)
    .build();
  const document = SwaggerModule.createDocument(app, config);
  return sortDocument(applyDocumentRules(namePermissions(document)));
}

/** Swagger UI at /docs, the document at /docs/openapi.json. */
export function setupSwagger(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs/openapi.json',
    yamlDocumentUrl: 'docs/openapi.yaml',
    swaggerOptions: { persistAuthorization: true, displayRequestDuration: true },
    customSiteTitle: 'Medios admin API',
  });
}

/** Names each operation's required permission in its description too (API.md "Headers and transport"). */
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

/** Stable key order, so the committed openapi.json only changes when the API does. */
function sortDocument(doc: OpenAPIObject): OpenAPIObject {
  const paths = Object.fromEntries(Object.entries(doc.paths).sort(([a], [b]) => a.localeCompare(b)));
  const schemas = doc.components?.schemas
    ? Object.fromEntries(Object.entries(doc.components.schemas).sort(([a], [b]) => a.localeCompare(b)))
    : undefined;
  return { ...doc, paths, components: { ...doc.components, ...(schemas ? { schemas } : {}) } };
}
