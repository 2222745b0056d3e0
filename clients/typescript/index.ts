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

/** Where one tab keeps the tokens: `memoryTokenStore`, or a holder of the frontend's own state. */
export interface TokenStore {
  get(): Tokens | undefined;
  set(tokens: Tokens | undefined): void;
}

/** A store whose reads and writes take a round trip, such as `sharedTokenStore` (IndexedDB). */
export interface AsyncTokenStore {
  get(): Promise<Tokens | undefined>;
  /** Settles once the write is visible to every later `get`, in any tab. */
  set(tokens: Tokens | undefined): Promise<void>;
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

/**
 * Runs `task` while no other holder of the same lock runs one, and settles after it. Across the
 * tabs of an origin: `browserLock()`, or `(task) => navigator.locks.request('medios-refresh', task)`.
 */
export type RefreshLock = (task: () => Promise<void>) => Promise<void>;

/** Serializes within this tab only: enough when no other tab shares the tokens. */
function tabLock(): RefreshLock {
  let tail: Promise<void> = Promise.resolve();
  return (task) => {
    const run = tail.then(task);
    tail = run.catch(() => undefined);
    return run;
  };
}

interface WebLocks {
  request(name: string, task: () => Promise<void>): Promise<void>;
}

/**
 * The Web Locks API (`navigator.locks`, secure contexts only: https or localhost): the browser
 * grants a lock name to one holder at a time across every tab, window and worker of the origin,
 * and frees it when the task settles or its tab closes.
 */
export function browserLock(name = 'medios-refresh'): RefreshLock {
  const navigator: unknown = Reflect.get(globalThis, 'navigator');
  const locks = typeof navigator === 'object' && navigator !== null ? (Reflect.get(navigator, 'locks') as WebLocks | undefined) : undefined;
  if (!locks) throw new Error('browserLock needs navigator.locks: a browser page or worker served over https or from localhost');
  return (task) => locks.request(name, task);
}

// The few IndexedDB shapes sharedTokenStore uses, so this file compiles without the DOM library.
interface IdbRequest<T> {
  readonly result: T;
  readonly error: unknown;
  onsuccess: (() => void) | null;
  onerror: (() => void) | null;
}
interface IdbOpenRequest extends IdbRequest<IdbDatabase> {
  onupgradeneeded: (() => void) | null;
}
interface IdbObjectStore {
  get(key: string): IdbRequest<unknown>;
  put(value: unknown, key: string): IdbRequest<unknown>;
  delete(key: string): IdbRequest<unknown>;
}
interface IdbTransaction {
  readonly error: unknown;
  objectStore(name: string): IdbObjectStore;
  oncomplete: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
}
interface IdbDatabase {
  createObjectStore(name: string): unknown;
  transaction(store: string, mode: 'readonly' | 'readwrite'): IdbTransaction;
  close(): void;
  onversionchange: (() => void) | null;
  onclose: (() => void) | null;
}
interface IdbFactory {
  open(name: string, version: number): IdbOpenRequest;
}

const OBJECT_STORE = 'tokens';
const CURRENT = 'current';

function asTokens(value: unknown): Tokens | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const accessToken: unknown = Reflect.get(value, 'accessToken');
  const refreshToken: unknown = Reflect.get(value, 'refreshToken');
  return typeof accessToken === 'string' && typeof refreshToken === 'string' ? { accessToken, refreshToken } : undefined;
}

/**
 * The pair kept in IndexedDB, shared by every tab of the origin. Unlike localStorage, whose copy
 * in each tab's renderer process is synced from the others asynchronously (a tab may read a pair
 * another tab replaced moments ago), IndexedDB transactions run in the browser's one storage
 * backend: a read that starts after a write's transaction completed sees that write, in any tab.
 * With `browserLock()` around the refresh this is what lets a tab see the pair another tab just
 * rotated instead of presenting the spent refresh token again.
 */
export function sharedTokenStore(databaseName = 'medios-session'): AsyncTokenStore {
  const factory = Reflect.get(globalThis, 'indexedDB') as IdbFactory | undefined;
  if (!factory) throw new Error('sharedTokenStore needs IndexedDB: a browser page or worker');
  let opened: Promise<IdbDatabase> | undefined;

  const database = (): Promise<IdbDatabase> =>
    (opened ??= new Promise<IdbDatabase>((resolve, reject) => {
      const request = factory.open(databaseName, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(OBJECT_STORE);
      request.onsuccess = () => {
        const db = request.result;
        // a later version being opened in another tab must not wait for this connection forever
        db.onversionchange = () => {
          db.close();
          opened = undefined;
        };
        db.onclose = () => {
          opened = undefined;
        };
        resolve(db);
      };
      request.onerror = () => {
        opened = undefined;
        reject(request.error instanceof Error ? request.error : new Error(`cannot open IndexedDB ${databaseName}`));
      };
    }));

  const run = async <T>(mode: 'readonly' | 'readwrite', work: (store: IdbObjectStore) => IdbRequest<T>): Promise<T> => {
    const db = await database();
    return new Promise<T>((resolve, reject) => {
      let transaction: IdbTransaction;
      try {
        transaction = db.transaction(OBJECT_STORE, mode);
      } catch (error) {
        opened = undefined; // the connection was closed under us: the next call opens another
        throw error;
      }
      const request = work(transaction.objectStore(OBJECT_STORE));
      // settle on commit, not on the request's success: only then is a write visible to other tabs
      transaction.oncomplete = () => resolve(request.result);
      transaction.onerror = transaction.onabort = () =>
        reject(transaction.error instanceof Error ? transaction.error : new Error('IndexedDB transaction aborted'));
    });
  };

  return {
    get: async () => asTokens(await run('readonly', (store) => store.get(CURRENT))),
    set: async (tokens) => {
      await run('readwrite', (store) =>
        tokens ? store.put({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken }, CURRENT) : store.delete(CURRENT),
      );
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
  store: TokenStore | AsyncTokenStore;
  /**
   * Serializes refreshes among everything sharing `store`. Default: within this tab. Tabs sharing
   * one pair need a lock they all see (`browserLock()`) and a store every tab reads the same
   * (`sharedTokenStore()`).
   */
  lock?: RefreshLock;
  /**
   * Called when the session is over for this tab: the refresh was refused, the pair was dropped by
   * another tab, or the call retried with a fresh token was refused too. Once per dead token.
   */
  onSessionEnded?: () => void;
}

/** What a 401 leads to: the pair to retry with, the end of the session, or no decision (refresh unreachable). */
type Renewal = Tokens | 'ended' | 'unavailable';

/**
 * Bearer tokens plus 401 → refresh → retry, as openapi-fetch middleware. The service rotates
 * refresh tokens and treats a second use of the same one as theft (the whole session is revoked),
 * so every 401 is settled under `lock`, after reading the store again: if the stored access token
 * is no longer the one that met the 401, someone sharing the store (another call, another tab)
 * already refreshed, and that pair is used as is; only a 401 of the stored token itself refreshes.
 * Each request is retried at most once; a refused refresh, or a 401 to the retried request, clears
 * the store and calls `onSessionEnded`.
 */
export function authMiddleware(options: AuthOptions): Middleware {
  const doFetch = options.fetch ?? globalThis.fetch;
  const refresher = createApiClient(options);
  const lock = options.lock ?? tabLock();
  const sent = new WeakMap<Request, { replay: Request; accessToken: string | undefined }>();
  let endedFor: string | undefined;

  const locked = async <T>(task: () => Promise<T>): Promise<T> => {
    const box: { outcome?: { value: T } } = {};
    await lock(async () => {
      box.outcome = { value: await task() };
    });
    if (!box.outcome) throw new Error('the refresh lock settled without running its task');
    return box.outcome.value;
  };

  const renew = (refused: string | undefined): Promise<Renewal> =>
    locked(async () => {
      const stored = await options.store.get();
      if (!stored) return 'ended'; // dropped by whoever learnt first that the session was over
      if (stored.accessToken !== refused) return stored; // rotated (or signed in) since this call was sent
      const { data, response } = await refresher.POST('/api/v1/auth/refresh', { body: stored });
      if (data) {
        const next = { accessToken: data.accessToken, refreshToken: data.refreshToken };
        await options.store.set(next);
        return next;
      }
      // a 5xx or 429 decided nothing about the session: keep the pair and let the next 401 try again
      if (response.status !== 400 && response.status !== 401) return 'unavailable';
      await options.store.set(undefined);
      return 'ended';
    });

  const sessionEnded = (accessToken: string | undefined): void => {
    if (accessToken === undefined || accessToken === endedFor) return;
    endedFor = accessToken;
    options.onSessionEnded?.();
  };

  return {
    async onRequest({ request, schemaPath }) {
      if (UNAUTHENTICATED.has(schemaPath)) return undefined;
      const tokens = await options.store.get();
      if (tokens) request.headers.set('Authorization', `Bearer ${tokens.accessToken}`);
      // the body is consumed when the request is sent: keep a copy to replay after a refresh
      sent.set(request, { replay: request.clone(), accessToken: tokens?.accessToken });
      return request;
    },
    async onResponse({ request, response, schemaPath }) {
      const call = sent.get(request);
      sent.delete(request);
      if (response.status !== 401 || UNAUTHENTICATED.has(schemaPath) || !call) return undefined;
      const renewal = await renew(call.accessToken);
      if (renewal === 'unavailable') return undefined;
      if (renewal === 'ended') {
        sessionEnded(call.accessToken);
        return undefined;
      }
      call.replay.headers.set('Authorization', `Bearer ${renewal.accessToken}`);
      const retried = await doFetch(call.replay);
      if (retried.status === 401) {
        // the fresh token is refused too: the session ended meanwhile (a sign-out elsewhere, a
        // user change, a refresh token reused by another holder). Drop the pair unless it has
        // already been replaced by a newer one, such as another tab's new sign-in.
        await locked(async () => {
          if ((await options.store.get())?.accessToken === renewal.accessToken) await options.store.set(undefined);
        });
        sessionEnded(renewal.accessToken);
      }
      return retried;
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
