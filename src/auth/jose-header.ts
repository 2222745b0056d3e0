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

/** `Authorization: Bearer <token>` and nothing else (RFC 6750's b64token); anything after the token is refused. */
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

export function bearerTokenOf(request: { headers: Record<string, string | string[] | undefined> }): string | null {
  const value = request.headers.authorization;
  return typeof value === 'string' ? (BEARER.exec(value)?.[1] ?? null) : null;
}
