import { type DiagLogger, DiagLogLevel } from '@opentelemetry/api';
import { redactUrl } from '../common/config/redact-url.js';
import { type StartupLog, startupLog } from '../common/logging/startup-log.js';

const DIAG_LEVELS: Readonly<Record<string, DiagLogLevel>> = {
  none: DiagLogLevel.NONE,
  error: DiagLogLevel.ERROR,
  warn: DiagLogLevel.WARN,
  info: DiagLogLevel.INFO,
  debug: DiagLogLevel.DEBUG,
  verbose: DiagLogLevel.VERBOSE,
  all: DiagLogLevel.ALL,
};

/** OTEL_LOG_LEVEL as the SDK reads it (case-insensitive); warn when unset or unknown. */
export function diagnosticsLevel(value: string | undefined): DiagLogLevel {
  return DIAG_LEVELS[(value ?? '').trim().toLowerCase()] ?? DiagLogLevel.WARN;
}

/**
 * The SDK's own diagnostics — an OTEL_TRACES_EXPORTER value it does not know, spans the collector
 * refused or could not be reached for — as lines of the service's log shape on stdout (context
 * `OpenTelemetry`; pino's levels). Without a logger the SDK drops them, and traces go missing with
 * nothing said. A URL's password in a message is masked, as in every other line.
 */
export class DiagnosticsLog implements DiagLogger {
  private readonly log: StartupLog;

  /** `logLevel`: LOG_LEVEL, whose threshold these lines follow too */
  constructor(logLevel = 'info', write?: (line: string) => void) {
    this.log = startupLog(logLevel, write);
  }

  error = (message: string, ...args: unknown[]) => this.line(50, message, args);
  warn = (message: string, ...args: unknown[]) => this.line(40, message, args);
  info = (message: string, ...args: unknown[]) => this.line(30, message, args);
  debug = (message: string, ...args: unknown[]) => this.line(20, message, args);
  verbose = (message: string, ...args: unknown[]) => this.line(10, message, args);

  private line(level: number, message: string, args: unknown[]): void {
    const msg = [message, ...args].map(describe).filter(Boolean).join(' ');
    this.log(redactUrls(msg), level, { context: 'OpenTelemetry' });
  }
}

/**
 * One part of a diagnostic as text: an error by its message (and code). The SDK's handler of
 * export errors passes the error flattened to a JSON string, stack and all: read back the same way.
 */
function describe(part: unknown): string {
  let value = part;
  if (typeof part === 'string') {
    if (!part.startsWith('{')) return part;
    try {
      value = JSON.parse(part);
    } catch {
      return part;
    }
  }
  if (value && typeof value === 'object' && typeof (value as { message?: unknown }).message === 'string') {
    const { message, code } = value as { message: string; code?: unknown };
    return code === undefined ? message : `${message} (${String(code)})`;
  }
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}

/** Every URL of a message with its password masked (redactUrl). */
function redactUrls(text: string): string {
  return text.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"']+/gi, (url) => redactUrl(url));
}
