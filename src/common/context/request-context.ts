import { Injectable } from '@nestjs/common';
import { ClsService, type ClsStore } from 'nestjs-cls';
import { randomUUID } from 'node:crypto';

/** What the service knows about the current request, carried in CLS (nestjs-cls). */
export interface RequestStore extends ClsStore {
  correlationId?: string | null;
  ip?: string | null;
  userAgent?: string | null;
  /** the route template the request matched (`/api/v1/users/:id`), else its path */
  endpoint?: string | null;
  method?: string | null;
  /** the `sub` claim of a verified access token, as a positive integer */
  actorUserId?: number;
  actorUsername?: string;
  /**
   * the `sub` of the access token as soon as its signature is verified, before the user and the
   * session are checked: whose turn the request takes when it waits for a pooled connection
   * (database/connection-turns.ts); until then its address's
   */
  tokenSubject?: number;
  /**
   * What the access guard admitted the actor on: the token's session, the permissions the route
   * required, and whether the route serves an ended session (logout). An operation that writes long
   * after the guard (one that waited for a password hash) checks the same again (DelegationPolicy).
   */
  admission?: Admission;
  /**
   * The row version an `If-Match` header was checked against, and whether it named another
   * representation (`stale`: the change answers 412 at its write); cleared once the change's write
   * compared it (common/versioning)
   */
  ifMatchVersion?: { table: string; column: string; version: number; stale: boolean };
}

export interface Admission {
  sessionId: string;
  required: readonly string[];
  endedSessionAllowed: boolean;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The client's X-Correlation-Id when it is a GUID, as the client wrote it (an upper-case GUID is
 * answered upper-case, so a client comparing what it sent finds it), else a new one. The audit
 * stores it as a GUID, and gives it back in lower case on both engines.
 */
export function correlationIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && GUID.test(value.trim()) ? value.trim() : randomUUID();
}

/**
 * The request's store itself, or undefined outside a request context. The fields are read and
 * written on the store object: nestjs-cls's string keys are dotted paths, split on every get and
 * set, which cost more than the rest of the context's work per request.
 */
export function requestStore(cls: ClsService<RequestStore>): RequestStore | undefined {
  return cls.get() as RequestStore | undefined;
}

@Injectable()
export class RequestContext {
  constructor(private readonly cls: ClsService<RequestStore>) {}

  get active(): boolean {
    return this.cls.isActive();
  }
  get correlationId(): string | null {
    return requestStore(this.cls)?.correlationId ?? null;
  }
  get ip(): string | null {
    return requestStore(this.cls)?.ip ?? null;
  }
  get userAgent(): string | null {
    return requestStore(this.cls)?.userAgent ?? null;
  }
  get endpoint(): string | null {
    return requestStore(this.cls)?.endpoint ?? null;
  }
  get method(): string | null {
    return requestStore(this.cls)?.method ?? null;
  }
  get actorUserId(): number | undefined {
    return requestStore(this.cls)?.actorUserId;
  }
  setActor(userId: number, username?: string, admission?: Admission): void {
    const store = requestStore(this.cls);
    if (!store) throw new Error('RequestContext.setActor: no request context is active');
    store.actorUserId = userId;
    if (username !== undefined) store.actorUsername = username;
    if (admission !== undefined) store.admission = admission;
  }

  /** What the access guard admitted the actor on (RequestStore.admission), if a guard did. */
  get admission(): Admission | undefined {
    return requestStore(this.cls)?.admission;
  }

  /** The verified token's subject, for the turns at the connection pool (RequestStore.tokenSubject). */
  setTokenSubject(userId: number): void {
    const store = requestStore(this.cls);
    if (store) store.tokenSubject = userId;
  }

  /**
   * Runs work outside any HTTP request (the first start, the CLI) with a given actor. There is no
   * request to correlate with, so the events it writes carry a null correlation id.
   */
  runAs<T>(actorUserId: number | undefined, work: () => Promise<T>): Promise<T> {
    return this.cls.run(async () => {
      this.cls.set('correlationId', null);
      this.cls.set('ip', null);
      this.cls.set('userAgent', null);
      if (actorUserId !== undefined) this.cls.set('actorUserId', actorUserId);
      return work();
    });
  }
}
