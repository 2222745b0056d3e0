/** The token's JOSE header, or undefined when it is not a JSON object. */
export function joseHeaderOf(rawJwt: string): Record<string, unknown> | undefined {
  try {
    const header: unknown = JSON.parse(Buffer.from(rawJwt.split('.')[0] ?? '', 'base64url').toString('utf8'));
    return header && typeof header === 'object' && !Array.isArray(header) ? (header as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the service accepts a token with this header: the published `kid`, and no `crit` — the
 * service implements no JWS extension, and RFC 7515 requires refusing a token that asks for one.
 */
export function acceptableHeader(header: Record<string, unknown> | undefined, kid: string): boolean {
  return header !== undefined && header.kid === kid && !Object.hasOwn(header, 'crit');
}

/**
 * The header check of every token, remembering the last header segment it accepted: the service
 * signs every token with one header (`alg`, `typ`, `kid`), so the segment of the next token is
 * almost always that same text and needs no decoding. The segment is the header only — never a
 * claim or the signature — and a different segment is decoded and checked as before.
 */
export class AcceptedHeaders {
  private accepted?: string;

  constructor(private readonly kid: string) {}

  accepts(rawJwt: string): boolean {
    const dot = rawJwt.indexOf('.');
    const segment = dot < 0 ? rawJwt : rawJwt.slice(0, dot);
    if (segment === this.accepted) return true;
    if (!acceptableHeader(joseHeaderOf(rawJwt), this.kid)) return false;
    this.accepted = segment;
    return true;
  }
}

/**
 * Whether the token's claims can be a JSON object: their segment's first byte is `{`, which
 * base64url encodes beginning with `e` (every token the service signs begins its claims with
 * `{"`, `eyJ`). jsonwebtoken reads the claims of a signed `null` as properties of null and throws
 * (a 500); claims that are an array, a string or a number are refused later, as any other.
 */
export function claimsMayBeObject(rawJwt: string): boolean {
  const dot = rawJwt.indexOf('.');
  return dot >= 0 && rawJwt.charCodeAt(dot + 1) === 0x65;
}

/** `Authorization: Bearer <token>` and nothing else (RFC 6750's b64token); anything after the token is refused. */
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

export function bearerTokenOf(request: { headers: Record<string, string | string[] | undefined> }): string | null {
  const value = request.headers.authorization;
  return typeof value === 'string' ? (BEARER.exec(value)?.[1] ?? null) : null;
}
