import { tracingApi } from './tracing.js';

/**
 * Runs an async method inside its own span (named `name`, status error when it throws) when tracing
 * is on. Decorators run when the class is defined, which is after tracing started (main.ts starts
 * it before loading the application): with tracing off the method is left exactly as it was.
 */
export function Traced(name: string): MethodDecorator {
  return (_target, _key, descriptor: PropertyDescriptor) => {
    const api = tracingApi();
    if (!api) return descriptor;
    const original = descriptor.value as (...args: unknown[]) => Promise<unknown>;
    const tracer = api.trace.getTracer('medios-admin-api');
    descriptor.value = function (this: unknown, ...args: unknown[]) {
      return tracer.startActiveSpan(name, async (span) => {
        try {
          return await original.apply(this, args);
        } catch (err) {
          span.setStatus({ code: api.SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
          throw err;
        } finally {
          span.end();
        }
      });
    };
    return descriptor;
  };
}
