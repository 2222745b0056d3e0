/**
 * Typed client of the Medios back-office API for the admin frontend: the types are generated from
 * the committed openapi.json by openapi-typescript (`npm run client` writes schema.d.ts; never
 * edit it by hand), the calls go through openapi-fetch. See README.md beside this file.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };

/** Every named schema of the document: `Schemas['MedioDto']`, `Schemas['ErrorCode']`… */
export type Schemas = components['schemas'];
export type ProblemDetails = Schemas['ProblemDetailsDto'];
export type ErrorCode = Schemas['ErrorCode'];

export type ApiClient = Client<paths>;

/** The signed-in session: what login and refresh answer. */
export interface Tokens {
  accessToken: string;
  refreshToken: string;
}

/** Where the frontend keeps the tokens (memory, a store, a BroadcastChannel-backed holder…). */
export interface TokenStore {
  get(): Tokens | undefined;
  set(tokens: Tokens | undefined): void;
}

export function memoryTokenStore(initial?: Tokens): TokenStore {
  let current = initial;
  return {
    get: () => current,
    set: (tokens) => {
      current = tokens;
    },
  };
}

export interface ClientOptions {
  /** Origin of the service, e.g. `https://api.example.com`; paths already carry `/api/v1`. */
  baseUrl: string;
  fetch?: typeof globalThis.fetch;
}

/** A client without authentication: sign in with it, or call the public operations. */
export function createApiClient(options: ClientOptions): ApiClient {
  return createClient<paths>({ baseUrl: options.baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });
}

/** Operations that take no bearer token: sending one (or refreshing on their 401) is wrong. */
const UNAUTHENTICATED = new Set(['/api/v1/auth/login', '/api/v1/auth/refresh']);

export interface AuthOptions extends ClientOptions {
  store: TokenStore;
  /** Called when the refresh token is refused too: the user must sign in again. */
  onSessionEnded?: () => void;
}

/**
 * Bearer tokens plus 401 → refresh → retry, as openapi-fetch middleware. Concurrent 401s share one
 * refresh: the service rotates refresh tokens and treats a second use of the same one as theft
 * (the whole session is revoked), so two parallel refreshes would sign the user out. Each request
 * is retried at most once; a refused refresh clears the store and calls `onSessionEnded`.
 */
export function authMiddleware(options: AuthOptions): Middleware {
  const doFetch = options.fetch ?? globalThis.fetch;
  const refresher = createApiClient(options);
  const pending = new WeakMap<Request, Request>();
  let refreshing: Promise<Tokens | undefined> | undefined;

  const refresh = async (): Promise<Tokens | undefined> => {
    const tokens = options.store.get();
    if (!tokens) return undefined;
    const { data } = await refresher.POST('/api/v1/auth/refresh', { body: tokens });
    const next = data ? { accessToken: data.accessToken, refreshToken: data.refreshToken } : undefined;
    options.store.set(next);
    if (!next) options.onSessionEnded?.();
    return next;
  };

  return {
    onRequest({ request, schemaPath }) {
      if (UNAUTHENTICATED.has(schemaPath)) return undefined;
      const tokens = options.store.get();
      if (tokens) request.headers.set('Authorization', `Bearer ${tokens.accessToken}`);
      // the body is consumed when the request is sent: keep a copy to replay after a refresh
      pending.set(request, request.clone());
      return request;
    },
    async onResponse({ request, response, schemaPath }) {
      const replay = pending.get(request);
      pending.delete(request);
      if (response.status !== 401 || UNAUTHENTICATED.has(schemaPath) || !replay) return undefined;
      refreshing ??= refresh().finally(() => {
        refreshing = undefined;
      });
      const tokens = await refreshing;
      if (!tokens) return undefined;
      replay.headers.set('Authorization', `Bearer ${tokens.accessToken}`);
      return doFetch(replay);
    },
  };
}

/** A client that signs every call with the store's access token and refreshes it on 401. */
export function createAuthenticatedClient(options: AuthOptions): ApiClient {
  const client = createApiClient(options);
  client.use(authMiddleware(options));
  return client;
}

/** Whether an error body is a problem document (every error outside /api/v1/admin/fiscal/*). */
export function isProblem(error: unknown): error is ProblemDetails {
  return typeof error === 'object' && error !== null && 'code' in error && 'status' in error && 'correlationId' in error;
}
