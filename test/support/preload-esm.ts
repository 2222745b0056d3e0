/**
 * Jest's module registry refuses a CommonJS package (nestjs-cls, @nestjs-cls/*, nestjs-pino…)
 * that `require()`s an ES-module-only Nest package while that package is still being linked.
 * Evaluating the Nest ES modules first, before any test file's import graph, avoids that.
 */
await import('reflect-metadata');
await import('@nestjs/common');
await import('@nestjs/core');
await import('@nestjs/platform-fastify');
