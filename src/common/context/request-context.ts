import { Injectable } from '@nestjs/common';
import { ClsService, type ClsStore } from 'nestjs-cls';
import { randomUUID } from 'node:crypto';

/** What the service knows about the current request, carried in CLS (nestjs-cls). */
export interface RequestStore extends ClsStore {
  correlationId?: string;
  ip?: string | null;
  userAgent?: string | null;
  /** the route template the request matched (`/api/v1/users/:id`), else its path */
  endpoint?: string | null;
  method?: string | null;
  /** the `sub` claim of a verified access token, as a positive integer */
  actorUserId?: number;
  actorUsername?: string;
  /** the row version an `If-Match` header was checked against (common/versioning) */
  ifMatchVersion?: { table: string; version: number };
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The client's X-Correlation-Id when it is a GUID, else a new one. */
export function correlationIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && GUID.test(value.trim()) ? value.trim().toLowerCase() : randomUUID();
}

@Injectable()
export class RequestContext {
  constructor(private readonly cls: ClsService<RequestStore>) {}

  get active(): boolean {
    return this.cls.isActive();
  }
  get correlationId(): string | null {
    return this.active ? (this.cls.get('correlationId') ?? null) : null;
  }
  get ip(): string | null {
    return this.active ? (this.cls.get('ip') ?? null) : null;
  }
  get userAgent(): string | null {
    return this.active ? (this.cls.get('userAgent') ?? null) : null;
  }
  get endpoint(): string | null {
    return this.active ? (this.cls.get('endpoint') ?? null) : null;
  }
  get method(): string | null {
    return this.active ? (this.cls.get('method') ?? null) : null;
  }
  get actorUserId(): number | undefined {
    return this.active ? this.cls.get('actorUserId') : undefined;
  }
  setActor(userId: number, username?: string): void {
    this.cls.set('actorUserId', userId);
    if (username !== undefined) this.cls.set('actorUsername', username);
  }

  /** Runs work outside any HTTP request (jobs, CLI) with a given actor and a fresh correlation id. */
  runAs<T>(actorUserId: number | undefined, work: () => Promise<T>): Promise<T> {
    return this.cls.run(async () => {
      this.cls.set('correlationId', randomUUID());
      this.cls.set('ip', null);
      this.cls.set('userAgent', null);
      if (actorUserId !== undefined) this.cls.set('actorUserId', actorUserId);
      return work();
    });
  }
}
