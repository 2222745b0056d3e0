/** Keys never written to audit or security metadata: secrets, tokens and card data. */
export const DEFAULT_SANITIZE_KEYS: readonly string[] = [
  'password',
  'token',
  'cvv',
  'accesstoken',
  'refreshtoken',
  'access_token',
  'refresh_token',
  'temporarypassword',
  'newpassword',
  'currentpassword',
  'secret',
  'authorization',
  'cookie',
  'cardnumber',
  'pan',
  'pin',
  'apikey',
  'passwordhash',
  'password_hash',
];

/**
 * Removes every object key whose lowercase form is blacklisted, at every depth, inside objects
 * and arrays. Null in, null out; anything else comes out as a JSON object (a scalar or an array
 * wrapped as `{ value }`); the result is always JSON-serializable (undefined, functions,
 * symbols and non-finite numbers are dropped or nulled like JSON.stringify does, cycles cut).
 */
export class MetadataSanitizer {
  private readonly keys: ReadonlySet<string>;

  /** `extraKeys` (AUDIT_SANITIZE_KEYS) are added to the defaults, never replacing them. */
  constructor(extraKeys: readonly string[] = []) {
    this.keys = new Set([...DEFAULT_SANITIZE_KEYS, ...extraKeys.map((k) => k.trim().toLowerCase()).filter(Boolean)]);
  }

  sanitize(input: unknown): Record<string, unknown> | null {
    if (input === null || input === undefined) return null;
    const cleaned = this.walk(input, new WeakSet());
    if (cleaned === undefined || cleaned === null) return null;
    // Metadata is always a JSON object: a scalar or an array is kept under `value`. SQL Server's
    // CHECK (ISJSON(metadata) = 1) accepts only objects and arrays, and readers of the trail can
    // rely on one shape on both engines.
    return typeof cleaned === 'object' && !Array.isArray(cleaned) ? (cleaned as Record<string, unknown>) : { value: cleaned };
  }

  isBlacklisted(key: string): boolean {
    return this.keys.has(key.toLowerCase());
  }

  private walk(value: unknown, seen: WeakSet<object>): unknown {
    if (value === null) return null;
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return value;
      case 'number':
        return Number.isFinite(value) ? value : null;
      case 'bigint':
        return value.toString();
      case 'undefined':
      case 'function':
      case 'symbol':
        return undefined;
    }
    const obj = value as object;
    if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? null : obj.toISOString();
    if (seen.has(obj)) return undefined;
    seen.add(obj);
    try {
      if (Array.isArray(obj))
        return obj.map((item) => {
          const v = this.walk(item, seen);
          return v === undefined ? null : v;
        });
      const toJSON = (obj as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') return this.walk((toJSON as () => unknown).call(obj), seen);
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(obj)) {
        if (this.keys.has(k.toLowerCase())) continue;
        const cleaned = this.walk(v, seen);
        if (cleaned !== undefined) out[k] = cleaned;
      }
      return out;
    } finally {
      seen.delete(obj);
    }
  }
}
