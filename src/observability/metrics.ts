import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { MaintenanceJobName } from '../audit/maintenance/maintenance-job.runner.js';
import type { EventStore } from '../database/dialects/sql-dialect.js';

/**
 * Why a request was refused by back-pressure (503 at once, with Retry-After): the hashing queue or
 * the strength-estimate queue was full (PASSWORD_QUEUE_MAX), or sign-ins of the same account were
 * still in flight.
 */
export const SHED_REASONS = ['password_queue_full', 'strength_queue_full', 'sign_ins_in_flight'] as const;
export type ShedReason = (typeof SHED_REASONS)[number];

/** Seconds; from a cached read to a slow audited write under load (BENCHMARKS.md), up to the statement (15 s) and request (30 s) time limits. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30];

/**
 * Every Prometheus metric of the service, on a registry of its own (one per application instance,
 * so applications in the same process do not share counters). What each one means and what to do
 * when its alert fires: docs/operations.md. No label carries a user id, a username, an id from a
 * path or a token: every label value comes from a short list fixed in the code.
 */
export class AppMetrics {
  readonly registry = new Registry();

  readonly httpDuration = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Duration of HTTP requests, by method, route template and status',
    labelNames: ['http_request_method', 'http_route', 'http_response_status_code'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });

  readonly auditWriteFailures = new Counter({
    name: 'audit_write_failures_total',
    help: 'Audit or security events that could not be written (the audited change was rolled back)',
    labelNames: ['store'] as const,
    registers: [this.registry],
  });

  readonly securityEventsSuppressed = new Counter({
    name: 'security_events_suppressed_total',
    help: 'Security events of a refusal one client repeated beyond the per-minute allowance, counted here instead of written',
    labelNames: ['action', 'reason'] as const,
    registers: [this.registry],
  });

  readonly requestsShed = new Counter({
    name: 'http_server_requests_shed_total',
    help: "Requests answered 503 servicio_no_disponible at once by back-pressure, by reason: a bounded queue full of one client's work, or sign-ins in flight filling a sign-in limit for more than 3 s; deliberate refusals, not failures",
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly loginAttempts = new Counter({
    name: 'login_attempts_total',
    help: 'Login attempts by result and failure reason (reason "none" on success)',
    labelNames: ['result', 'reason'] as const,
    registers: [this.registry],
  });

  readonly loginThrottled = new Counter({
    name: 'login_throttled_total',
    help: 'Login attempts refused with 429 because of too many recent failures',
    registers: [this.registry],
  });

  readonly permissionDenied = new Counter({
    name: 'permission_denied_total',
    help: 'Requests refused with 403 for lack of a permission',
    registers: [this.registry],
  });

  readonly jobRuns = new Counter({
    name: 'maintenance_job_runs_total',
    help: 'Maintenance job runs by job and result (ok, alert, busy, failed)',
    labelNames: ['job', 'result'] as const,
    registers: [this.registry],
  });

  readonly jobLastSuccess = new Gauge({
    name: 'maintenance_job_last_success_timestamp_seconds',
    help: 'Unix time of the last run of the job that completed (result ok or alert) in this process',
    labelNames: ['job'] as const,
    registers: [this.registry],
  });

  private defaultsOn = false;

  constructor() {
    // A labelled counter has no series until its first increment, which then appears at 1: an
    // alert on `increase(…) > 0` would never see that first failure of a process. The series the
    // alerts watch start at 0 instead.
    for (const store of ['audit_events', 'security_events'] satisfies EventStore[]) this.auditWriteFailures.inc({ store }, 0);
    for (const reason of SHED_REASONS) this.requestsShed.inc({ reason }, 0);
    for (const job of ['partition-manager', 'retention', 'integrity-check', 'audit-seal'] satisfies MaintenanceJobName[]) {
      this.jobRuns.inc({ job, result: 'failed' }, 0);
      this.jobRuns.inc({ job, result: 'alert' }, 0);
    }
  }

  /** prom-client's process and Node.js metrics (event-loop lag, heap, GC…): only where they are scraped. */
  collectDefaults(): void {
    if (this.defaultsOn) return;
    this.defaultsOn = true;
    collectDefaultMetrics({ register: this.registry });
  }

  /** A gauge whose value is read at each scrape. */
  gaugeReadAtScrape<L extends string>(
    config: { name: string; help: string; labelNames?: readonly L[] },
    read: (gauge: Gauge<L>) => void | Promise<void>,
  ): Gauge<L> {
    return new Gauge<L>({
      ...config,
      registers: [this.registry],
      async collect() {
        await read(this);
      },
    });
  }
}
