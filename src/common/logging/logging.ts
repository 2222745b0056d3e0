import type { Params } from 'nestjs-pino';
import type { AppConfig } from '../config/index.js';
import type { RawRequestContext } from '../common.module.js';
import { traceLogFields, tracingApi } from '../../observability/tracing.js';

/** Paths pino removes from every log line: credentials never reach the logs. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'password',
  'newPassword',
  'currentPassword',
  'temporaryPassword',
  'accessToken',
  'refreshToken',
  'token',
  '*.password',
  '*.newPassword',
  '*.currentPassword',
  '*.temporaryPassword',
  '*.accessToken',
  '*.refreshToken',
  '*.token',
  '*.authorization',
];

/**
 * Structured JSON logs (pino) carrying the correlation id of each request, and its trace id when
 * tracing is on. The one line per request is written by the request telemetry hook
 * (observability/request-telemetry.ts), which knows the route template and the actor; pino-http
 * only gives each request its logger.
 */
export function pinoOptions(config: AppConfig): Params {
  return {
    pinoHttp: {
      level: config.logLevel,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      genReqId: (req) => (req as RawRequestContext).correlationId ?? '',
      customAttributeKeys: { reqId: 'correlationId' },
      autoLogging: false,
      ...(tracingApi() ? { mixin: traceLogFields } : {}),
      serializers: {
        req: (req: { id?: string; method?: string; url?: string; remoteAddress?: string }) => ({
          method: req.method,
          url: redactQuery(req.url),
          remoteAddress: req.remoteAddress,
        }),
        res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
      },
      transport: config.logPretty ? { target: 'pino-pretty', options: { singleLine: true } } : undefined,
    },
  };
}

function redactQuery(url: string | undefined): string | undefined {
  if (!url) return url;
  return url.replace(/([?&](?:token|access_token|refresh_token|password)=)[^&]*/gi, '$1[redacted]');
}
