import fc from 'fast-check';
import type { Operation, ParameterObject, SchemaObject } from './openapi.js';

/**
 * Request generators for the OpenAPI-driven fuzzing: well-formed values from each operation's
 * schemas (with the ids and codes that exist in the database, so requests reach the handlers) and
 * hostile ones (wrong types, huge strings, deep nesting, unicode, SQL and JSON metacharacters,
 * huge and negative numbers, missing and extra fields, malformed JSON, wrong content types).
 */

export interface KnownData {
  /**
   * ids that exist, by the property name that takes them (medioId, rubroId, …) and by the
   * collection of a path's `{id}` (`users`, `medios`, `products`, …); `id` holds them all
   */
  ids: Record<string, number[]>;
  roleCodes: string[];
  permissionCodes: string[];
  /** usernames and passwords that sign in (login, change of the own password) */
  usernames: string[];
  passwords: string[];
}

export type AuthKind = 'admin' | 'none' | 'cajero' | 'garbage';

export interface FuzzRequest {
  method: Operation['method'];
  url: string;
  query?: Record<string, string | string[]>;
  headers: Record<string, string>;
  /** the raw payload, when any */
  payload?: string;
  auth: AuthKind;
  /** what the generator aimed at (for the figures) */
  kind: 'well-formed' | 'mutated' | 'hostile';
}

// ------------------------------------------------------------------------------------ hostile values

const SQL_AND_JSON_META = [
  "' OR '1'='1",
  "'; DROP TABLE users; --",
  '" OR ""="',
  '1; SELECT pg_sleep(10)--',
  "') UNION SELECT password_hash FROM users--",
  '%',
  '_',
  '\\',
  "\\'",
  '$1',
  '$$',
  '{"$gt":""}',
  '{}',
  '[]',
  '[',
  '{',
  '"',
  'null',
  'true',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  '1e999',
  '0x1F',
  '08',
  ' 1',
  '1 ',
  '+1',
  '1.0',
  '١٢٣',
  '../../../etc/passwd',
  '..%2f..%2f',
  '%00',
  '\u0000',
  'a\u0000b',
  '<script>alert(1)</script>',
  '${jndi:ldap://x/a}',
  '{{7*7}}',
  '%s%s%s%n',
  '\r\nX-Injected: 1',
  '\ud800',
  '\udfff',
  '\u202e\u0041\u0042',
  'Z\u0351\u0352\u0353',
  '👩‍👩‍👧‍👦',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'ß',
  'ǅ',
  '\ufeff',
  '\u200b',
  'İ',
  'ﬃ',
];

const hugeString = fc.constantFrom(10_000, 100_000, 300_000).chain((n) => fc.constantFrom('a', 'ñ', "'", '😀', '%').map((c) => c.repeat(n)));

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SQL_AND_JSON_META) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: hugeString },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((s) => `${s}${SQL_AND_JSON_META[s.length % SQL_AND_JSON_META.length]}`) },
);

const hugeNumber = fc.constantFrom(
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  -Number.MAX_SAFE_INTEGER,
  2 ** 31,
  2 ** 31 - 1,
  -(2 ** 31) - 1,
  2 ** 63,
  1e308,
  -1e308,
  5e-324,
  1e21,
  0.1 + 0.2,
  -0,
  -1,
  0,
);

export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  hugeNumber,
  fc.integer({ min: -1_000_000, max: 0 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** A JSON value that is the wrong kind for almost any field. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  { weight: 3, arbitrary: hostileNumber },
  {
    weight: 1,
    arbitrary: fc.constantFrom(null, true, false, [], {}, [null], { $ref: '#' }, JSON.parse('{"__proto__":{"admin":true}}'), {
      constructor: { prototype: { x: 1 } },
    }),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.integer({ min: 20, max: 200 }).map((d) => nest(d)) },
);

function nest(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

/** Raw payloads that are not the JSON an endpoint expects at all. */
const hostilePayload: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '{',
    '}',
    '{"a":',
    'null',
    '"text"',
    '[]',
    '123',
    'true',
    '{"a":1,"a":2}',
    '{"__proto__":{"x":1}}',
    '{"constructor":{"prototype":{"x":1}}}',
    '\u0000',
    '\ufeff{}',
    'NaN',
    '{"a":1}garbage',
  ),
  fc.integer({ min: 1000, max: 20_000 }).map((d) => `${'['.repeat(d)}${']'.repeat(d)}`),
  fc.integer({ min: 1000, max: 20_000 }).map((d) => `${'{"a":'.repeat(d)}1${'}'.repeat(d)}`),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.constant(`{"x":"${'a'.repeat(1_100_000)}"}`), // over the 1 MiB body limit
);

// ------------------------------------------------------------------------------------ well-formed values

const isoDate = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true });

function stringFor(name: string, s: SchemaObject, known: KnownData): fc.Arbitrary<string> {
  if (s.enum?.length) return fc.constantFrom(...(s.enum as string[]));
  if (name === 'rol' || (name === 'codigo' && s.pattern === '^[a-z][a-z0-9_]*$'))
    return fc.oneof(fc.constantFrom(...known.roleCodes), fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/));
  if (s.format === 'date')
    return fc.oneof(
      isoDate.map((d) => d.toISOString().slice(0, 10)),
      fc.integer({ min: -5, max: 400 }).map((n) => daysFromToday(n)),
    );
  if (s.format === 'date-time' || /^(from|to|asOf)$/.test(name)) return isoDate.map((d) => d.toISOString());
  if (name === 'username' && known.usernames.length)
    return fc.oneof(fc.constantFrom(...known.usernames), fc.stringMatching(/^[A-Za-z0-9._-]{3,50}$/));
  if (s.format === 'password' || /password/i.test(name))
    return fc.oneof(fc.string({ minLength: 10, maxLength: 40 }), fc.constant('Clave-Fuzz-123'), fc.constantFrom(...known.passwords));
  if (name === 'email') return fc.emailAddress();
  if (s.pattern) {
    try {
      return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length <= (s.maxLength ?? 200));
    } catch {
      /* a pattern fast-check cannot generate from */
    }
  }
  return fc.oneof(
    fc.string({ unit: 'grapheme', minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 60, 60) }),
    fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,30}$/).map((v) => v.slice(0, s.maxLength ?? 60)),
  );
}

function daysFromToday(days: number): string {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

function numberFor(name: string, s: SchemaObject, known: KnownData): fc.Arbitrary<number> {
  const ids = known.ids[name] ?? (/Id$|^id$/.test(name) ? known.ids.id : undefined);
  const min = typeof s.minimum === 'number' ? s.minimum : undefined;
  const max = typeof s.maximum === 'number' ? s.maximum : undefined;
  let plain: fc.Arbitrary<number>;
  if (s.type === 'integer' || (!s.multipleOf && min !== undefined && Number.isInteger(min) && (max === undefined || Number.isInteger(max)))) {
    plain = fc.integer({ min: Math.ceil(min ?? -10), max: Math.floor(Math.min(max ?? 100_000, 2_147_483_647)) });
  } else if (s.multipleOf && s.multipleOf < 1) {
    const scale = Math.round(1 / s.multipleOf);
    plain = fc
      .integer({ min: Math.ceil((min ?? 0) * scale), max: Math.floor(Math.min(max ?? 1_000_000, 1_000_000_000) * scale) })
      .map((n) => n / scale);
  } else {
    plain = fc.double({ min: min ?? -1e6, max: max ?? 1e6, noNaN: true, noDefaultInfinity: true });
  }
  return ids?.length ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...ids) }, { weight: 1, arbitrary: plain }) : plain;
}

/** A value that satisfies the schema (as far as the schema says; the service may know more rules). */
export function valueFor(name: string, schema: SchemaObject | undefined, known: KnownData, depth = 0): fc.Arbitrary<unknown> {
  const s = schema ?? {};
  const types = Array.isArray(s.type) ? s.type : [s.type];
  let arb: fc.Arbitrary<unknown>;
  if (s.enum?.length) arb = fc.constantFrom(...s.enum);
  else if (s.oneOf?.length || s.anyOf?.length) arb = fc.oneof(...(s.oneOf ?? s.anyOf)!.map((x) => valueFor(name, x, known, depth + 1)));
  else if (types.includes('integer') || types.includes('number')) arb = numberFor(name, s, known);
  else if (types.includes('boolean')) arb = fc.boolean();
  else if (types.includes('array')) {
    const codes = /^(permisos|granted|denied)$/.test(name) && known.permissionCodes.length ? fc.subarray(known.permissionCodes) : undefined;
    arb = codes ?? fc.array(valueFor(name, s.items, known, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 4, 4) });
  } else if (types.includes('object') || s.properties) arb = depth > 3 ? fc.constant({}) : objectFor(s, known, depth + 1);
  else if (types.includes('string')) arb = stringFor(name, s, known);
  else arb = fc.jsonValue({ maxDepth: 1 });
  return s.nullable ? fc.option(arb, { nil: null, freq: 5 }) : arb;
}

function objectFor(s: SchemaObject, known: KnownData, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const props = s.properties ?? {};
  const model = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, valueFor(k, v, known, depth)]));
  return fc.record(model, { requiredKeys: (s.required ?? []).filter((k) => k in props) }) as fc.Arbitrary<Record<string, unknown>>;
}

/** A body: well-formed, or well-formed with one flaw (missing field, extra field, one hostile value). */
function bodyFor(op: Operation, known: KnownData): fc.Arbitrary<{ payload?: string; kind: FuzzRequest['kind']; contentType?: string }> {
  const schema = op.body;
  const wellFormed = schema ? (valueFor('body', schema, known) as fc.Arbitrary<unknown>) : fc.constant(undefined);
  const json = (v: unknown) => (v === undefined ? undefined : JSON.stringify(v));
  const mutated = wellFormed.chain((value) => {
    const obj = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
    const keys = Object.keys(obj);
    return fc.oneof(
      // a required field missing
      fc.constantFrom(...(keys.length ? keys : ['x'])).map((k) => {
        const { [k]: _gone, ...rest } = obj;
        return rest;
      }),
      // an extra field
      fc
        .tuple(
          fc.constantFrom('extra', 'isAdmin', 'id', 'activo', 'codigo', 'username', 'medioId', 'createdAt', '__proto__', 'constructor'),
          hostileValue,
        )
        .map(([k, v]) => ({ ...obj, [k]: v })),
      // one field with a hostile value
      fc.tuple(fc.constantFrom(...(keys.length ? keys : ['x'])), hostileValue).map(([k, v]) => ({ ...obj, [k]: v })),
      // every field hostile
      fc
        .tuple(...(keys.length ? keys : ['x']).map(() => hostileValue))
        .map((vals) => Object.fromEntries((keys.length ? keys : ['x']).map((k, i) => [k, vals[i]]))),
    );
  });
  return fc.oneof(
    { weight: 4, arbitrary: wellFormed.map((v) => ({ payload: json(v), kind: 'well-formed' as const })) },
    { weight: 4, arbitrary: mutated.map((v) => ({ payload: json(v), kind: 'mutated' as const })) },
    { weight: 1, arbitrary: hostileValue.map((v) => ({ payload: json(v) ?? 'null', kind: 'hostile' as const })) },
    { weight: 1, arbitrary: hostilePayload.map((p) => ({ payload: p, kind: 'hostile' as const })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          wellFormed,
          fc.constantFrom(
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x',
            'application/json; charset=utf-16',
            'application/xml',
            '',
          ),
        )
        .map(([v, contentType]) => ({ payload: json(v) ?? '{}', kind: 'hostile' as const, contentType })),
    },
  );
}

const RAW_SEGMENTS = ['%', '%zz', '%E0%A4%A', '%00', '..', '.', '%2e%2e%2f', 'a%2Fb', '%C0%AE', '~', '*', '%20', '+'];

function pathValueFor(op: Operation, p: ParameterObject, known: KnownData): fc.Arbitrary<string> {
  // `{id}` takes the ids of the collection named before it (/users/{id} → users); `{codigo}` is a role's
  const segments = op.path.split('/');
  const collection = segments[segments.indexOf(`{${p.name}}`) - 1] ?? '';
  const ids = p.name === 'id' ? known.ids[collection] : known.ids[p.name];
  const well = (
    p.name === 'codigo'
      ? fc.oneof(fc.constantFrom(...known.roleCodes), fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/))
      : ids?.length
        ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...ids) }, { weight: 1, arbitrary: valueFor(p.name, p.schema, known) })
        : valueFor(p.name, p.schema, known)
  ).map((v) => encodeURIComponent(String(v)));
  const hostile = fc.oneof(
    hostileNumber.map((n) => encodeURIComponent(String(n))),
    hostileString.filter((s) => s.length > 0 && s.length < 5000).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, 'x'))),
    fc.constantFrom(...RAW_SEGMENTS),
    fc.string({ minLength: 150, maxLength: 400 }).map((s) => encodeURIComponent(s)), // long path values
  );
  return fc.oneof({ weight: 4, arbitrary: well }, { weight: 1, arbitrary: hostile });
}

function queryFor(op: Operation, known: KnownData): fc.Arbitrary<Record<string, string | string[]>> {
  const declared = op.parameters.filter((p) => p.in === 'query');
  const text = (v: unknown) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
  const wellFormed = (p: ParameterObject) => valueFor(p.name, p.schema, known).map(text);
  const anyValue = (p: ParameterObject) =>
    fc.oneof(
      { weight: 2, arbitrary: wellFormed(p) },
      { weight: 1, arbitrary: hostileString.filter((s) => s.length < 5000).map((s) => s.replace(/[\ud800-\udfff]/g, 'x')) },
      { weight: 1, arbitrary: fc.array(fc.string({ maxLength: 5 }), { minLength: 2, maxLength: 3 }) },
    );
  const entries = (hostile: boolean) =>
    declared.map((p) => fc.option(hostile ? anyValue(p) : wellFormed(p), { nil: undefined, freq: 2 }).map((v) => [p.name, v] as const));
  const extra = fc.option(
    fc.tuple(
      fc.constantFrom('extra', 'page', 'pageSize', 'limit', 'sort', '__proto__', 'id[]', 'a[b]'),
      hostileString.filter((s) => s.length < 1000),
    ),
    { nil: undefined, freq: 3 },
  );
  const pairs = fc.oneof(
    { weight: 2, arbitrary: fc.tuple(fc.tuple(...entries(false)), fc.constant(undefined)) },
    { weight: 1, arbitrary: fc.tuple(fc.tuple(...entries(true)), extra) },
  );
  return pairs.map(([pairs, more]) => {
    const q: Record<string, string | string[]> = {};
    for (const [k, v] of pairs) if (v !== undefined) q[k] = v as string | string[];
    if (more) q[more[0]] = more[1].replace(/[\ud800-\udfff]/g, 'x');
    return q;
  });
}

/** One fuzzed request for an operation. */
export function requestFor(op: Operation, known: KnownData): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const path = fc.tuple(...pathParams.map((p) => pathValueFor(op, p, known))).map((values) => {
    let url = op.path;
    pathParams.forEach((p, i) => (url = url.replace(`{${p.name}}`, values[i]!)));
    return url;
  });
  const auth = fc.constantFrom<AuthKind>('admin', 'admin', 'admin', 'admin', 'admin', 'admin', 'none', 'none', 'cajero', 'garbage');
  const body = ['GET', 'DELETE'].includes(op.method)
    ? fc.oneof(
        { weight: 9, arbitrary: fc.constant({ payload: undefined, kind: 'well-formed' as const }) },
        { weight: 1, arbitrary: hostilePayload.map((p) => ({ payload: p, kind: 'hostile' as const })) },
      )
    : bodyFor(op, known);
  const headers: fc.Arbitrary<Record<string, string>> = fc.oneof(
    { weight: 8, arbitrary: fc.constant({}) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Record<string, string>>(
        { 'x-correlation-id': 'not-a-guid' },
        { 'x-correlation-id': '0f8fad5b-d9cb-469f-a165-70867728950e' },
        { 'x-correlation-id': "'; DROP TABLE users;--" },
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Record<string, string>>(
        { 'user-agent': 'x'.repeat(2000) },
        { 'x-forwarded-for': '1.2.3.4, ::1' },
        { 'accept-language': 'xx;q=abc,*;q=-1' },
      ),
    },
  );
  return fc.record({ path, query: queryFor(op, known), auth, body, headers }).map(({ path: url, query, auth: a, body: b, headers: h }) => {
    const all: Record<string, string> = { ...h };
    const withContentType = b as { contentType?: string };
    if (b.payload !== undefined) all['content-type'] = withContentType.contentType ?? 'application/json';
    if (all['content-type'] === '') delete all['content-type'];
    return { method: op.method, url, query, headers: all, payload: b.payload, auth: a, kind: b.kind };
  });
}
