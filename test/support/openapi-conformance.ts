import { expect } from '@jest/globals';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Every answer the tests receive, held against the committed OpenAPI document (openapi.json): the
 * operation must declare the status, the answer must carry the headers declared for it, and a
 * JSON body must match the declared schema of that status and content type. The document is generated from the same decorators the code carries,
 * so this is what keeps the decorators honest about the answers the handlers really build.
 *
 * Requests to a path or method the document does not have (a 404 of an unknown route, a probe of
 * an undeclared method) are not checked: there is no operation to hold them against.
 *
 * OPENAPI_CONFORMANCE: `enforce` (default) makes the request throw on a mismatch; `report=<file>`
 * appends each mismatch as a JSON line to the file instead; `off` checks nothing.
 */
interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  /** static segments count: the most specific template wins (`/users/me` over `/users/{id}`) */
  specificity: number;
  responses: Record<string, Response>;
}

type Response = { content?: Record<string, { schema?: object }>; headers?: Record<string, unknown>; $ref?: string };

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  text: string;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCUMENT_ID = 'openapi.json';

class Conformance {
  private readonly operations: Operation[] = [];
  private readonly ajv: Ajv;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly responses: Record<string, Response>;
  private readonly headers: Record<string, { schema?: { enum?: string[] } }>;

  constructor(document: {
    paths: Record<string, Record<string, { responses?: Operation['responses'] }>>;
    components?: { responses?: Record<string, Response>; headers?: Record<string, { schema?: { enum?: string[] } }> };
  }) {
    this.responses = document.components?.responses ?? {};
    this.headers = document.components?.headers ?? {};
    for (const [template, methods] of Object.entries(document.paths)) {
      const segments = template.split('/');
      const pattern = new RegExp(`^${segments.map((s) => (/^\{.+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`);
      const specificity = segments.filter((s) => s && !/^\{.+\}$/.test(s)).length;
      for (const [method, operation] of Object.entries(methods)) {
        this.operations.push({ method: method.toUpperCase(), template, pattern, specificity, responses: operation.responses ?? {} });
      }
    }
    this.operations.sort((a, b) => b.specificity - a.specificity);
    // OpenAPI 3.0 schemas: `nullable`, `example` and friends are not JSON Schema keywords
    this.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormats.default(this.ajv);
    this.ajv.addKeyword({ keyword: 'example' });
    this.ajv.addSchema({ $id: DOCUMENT_ID, components: document.components }, DOCUMENT_ID);
  }

  /** What is wrong with the answer to `method url`, or undefined when it conforms (or has no operation). */
  problem(method: string, url: string, answer: Answer): string | undefined {
    let path: string;
    try {
      path = decodeURI(url.split('?')[0]!);
    } catch {
      return undefined; // a malformed %-escape: no operation can be named for it
    }
    const operation = this.operations.find((op) => op.method === method && op.pattern.test(path));
    if (!operation) return undefined;
    const declared = this.resolve(operation.responses[String(answer.status)] ?? operation.responses.default);
    const where = `${method} ${operation.template} → ${answer.status}`;
    if (!declared) return `${where}: status not declared (declared: ${Object.keys(operation.responses).join(', ')})`;
    const missing = Object.keys(declared.headers ?? {}).filter((name) => answer.headers[name.toLowerCase()] === undefined);
    if (missing.length) return `${where}: declared header(s) not sent: ${missing.join(', ')}`;
    for (const name of Object.keys(declared.headers ?? {})) {
      const allowed = this.headerEnum(declared.headers![name]);
      const sent = String(answer.headers[name.toLowerCase()]);
      if (allowed && !allowed.includes(sent)) return `${where}: header ${name} is ${sent}, not one of ${allowed.join(' | ')}`;
    }
    if (!answer.text) return undefined;
    const type = String(answer.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    if (!declared.content) return `${where}: a body of ${type} where the document declares none`;
    const media = declared.content[type];
    if (!media) return `${where}: content type ${type} not declared (declared: ${Object.keys(declared.content).join(', ')})`;
    if (!media.schema || !type.endsWith('json')) return undefined;
    const validate = this.validator(`${operation.method} ${operation.template} ${answer.status} ${type}`, media.schema);
    if (validate(answer.body)) return undefined;
    const errors = (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
    return `${where}: body does not match its schema: ${errors.join('; ')}; body: ${answer.text.slice(0, 300)}`;
  }

  /** The values a declared header may take, when its schema lists them. */
  private headerEnum(header: unknown): string[] | undefined {
    const ref = (header as { $ref?: string } | undefined)?.$ref;
    const resolved = ref ? this.headers[ref.replace('#/components/headers/', '')] : (header as { schema?: { enum?: string[] } } | undefined);
    return resolved?.schema?.enum;
  }

  /** A response of the operation, or the one of components.responses it refers to. */
  private resolve(response: Response | undefined): Response | undefined {
    const target = response && '$ref' in response ? response.$ref : undefined;
    if (!target) return response;
    return this.responses[target.replace('#/components/responses/', '')];
  }

  private validator(key: string, schema: object): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      // the document's `#/components/...` references, resolved inside the added document
      const resolved = JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, `"$ref":"${DOCUMENT_ID}#/`)) as object;
      validate = this.ajv.compile(resolved);
      this.validators.set(key, validate);
    }
    return validate;
  }
}

let conformance: Conformance | undefined;

/** What is wrong with the answer to `method url` by the committed document; undefined when nothing is. */
export function conformanceProblem(method: string, url: string, answer: Answer): string | undefined {
  conformance ??= new Conformance(JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')) as ConstructorParameters<typeof Conformance>[0]);
  return conformance.problem(method, url, answer);
}

/** Checks one answer as OPENAPI_CONFORMANCE says: throws (enforce), records (report=<file>) or nothing (off). */
export function checkConformance(method: string, url: string, answer: Answer): void {
  const mode = process.env.OPENAPI_CONFORMANCE ?? 'enforce';
  if (mode === 'off') return;
  const problem = conformanceProblem(method, url, answer);
  if (!problem) return;
  if (mode.startsWith('report=')) {
    appendFileSync(mode.slice('report='.length), `${JSON.stringify({ test: expect.getState().currentTestName, problem })}\n`);
    return;
  }
  throw new Error(`the answer does not conform to openapi.json: ${problem}`);
}
