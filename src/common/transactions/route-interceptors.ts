import { type DynamicModule, RequestMethod, type Type } from '@nestjs/common';
import { INTERCEPTORS_METADATA, METHOD_METADATA, MODULE_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { MetadataScanner } from '@nestjs/core';
import { BodilessInterceptor } from '../http/bodiless.interceptor.js';
import { CREATED_LOCATION } from '../http/created.decorator.js';
import { LocationInterceptor } from '../http/location.interceptor.js';
import { takesArgument } from '../http/route-arguments.js';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';
import { ETagInterceptor, VERSIONED_READ } from '../versioning/etag.interceptor.js';
import { VERSIONED, type VersionedMetadata } from '../versioning/versioned.decorator.js';
import { NO_REQUEST_TRANSACTION, RequestTransactionInterceptor } from './request-transaction.interceptor.js';

type ModuleRef = Type | DynamicModule;

const MUTATING = new Set<RequestMethod>([RequestMethod.POST, RequestMethod.PUT, RequestMethod.PATCH, RequestMethod.DELETE, RequestMethod.ALL]);
const bound = new WeakSet<object>();

/**
 * Binds the per-request interceptors to the routes they act on, before Nest scans the modules:
 * BodilessInterceptor on every mutating route (POST, PUT, PATCH, DELETE) that takes no `@Body()`,
 * then RequestTransactionInterceptor on every mutating route not marked @NoRequestTransaction, then
 * ETagInterceptor on every mutating @Versioned route, then LocationInterceptor on every @Created
 * route — in that order and ahead of a route's own interceptors, so a body sent to an operation
 * that takes none is refused before any work, the If-Match check and the route's work run inside
 * the request's transaction, and a create's `Location` is set from its answer before the answer's
 * ETag. A @Versioned read
 * gets no interceptor: its route config carries the metadata, and createApp's preSerialization
 * hook (ETagInterceptor.tagRead) tags its answer. Bound per route instead of globally: a global
 * interceptor puts Nest's rxjs pipeline on every request, reads included, where these have nothing
 * to do.
 *
 * Every controller of `modules` (and of what they import) is covered, so a new mutating route is
 * transactional without anyone remembering it. Idempotent: the metadata lives on the handler
 * functions, which every application built in one process shares.
 */
export function bindRouteInterceptors(modules: readonly ModuleRef[]): void {
  const scanner = new MetadataScanner();
  for (const controller of controllersOf(modules)) {
    const prototype = controller.prototype as Record<string, unknown>;
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[name];
      if (typeof handler !== 'function' || bound.has(handler)) continue;
      bound.add(handler);
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) continue;
      const transactional =
        MUTATING.has(method) && !Reflect.getMetadata(NO_REQUEST_TRANSACTION, handler) && !Reflect.getMetadata(NO_REQUEST_TRANSACTION, controller);
      const versioned = Reflect.getMetadata(VERSIONED, handler) as VersionedMetadata | undefined;
      // a versioned read runs no transaction: its answer is tagged as it is serialized
      if (versioned && !MUTATING.has(method)) markVersionedRead(handler, versioned);
      const own = [
        ...(MUTATING.has(method) && !takesArgument(controller, name, RouteParamtypes.BODY) ? [BodilessInterceptor] : []),
        ...(transactional ? [RequestTransactionInterceptor] : []),
        ...(versioned && MUTATING.has(method) ? [ETagInterceptor] : []),
        ...(Reflect.getMetadata(CREATED_LOCATION, handler) ? [LocationInterceptor] : []),
      ];
      if (own.length === 0) continue;
      const declared = (Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[] | undefined) ?? [];
      Reflect.defineMetadata(INTERCEPTORS_METADATA, [...own, ...declared], handler);
    }
  }
}

/** Puts a versioned read's metadata in its fastify route config, where ETagInterceptor.tagRead finds it. */
function markVersionedRead(handler: object, versioned: VersionedMetadata): void {
  const config = (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as Record<string, unknown> | undefined) ?? {};
  Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG_METADATA, { ...config, [VERSIONED_READ]: versioned }, handler);
}

/** The controllers of these modules and of every module they import, each once. */
export function controllersOf(modules: readonly ModuleRef[]): Set<Type> {
  const controllers = new Set<Type>();
  const seen = new Set<unknown>();
  const visit = (ref: ModuleRef) => {
    if (!ref || seen.has(ref)) return;
    seen.add(ref);
    const type = 'module' in ref ? ref.module : ref;
    const dynamic = 'module' in ref ? ref : undefined;
    const declared = [...((Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, type) as Type[] | undefined) ?? []), ...(dynamic?.controllers ?? [])];
    for (const controller of declared) controllers.add(controller);
    const imports = [
      ...((Reflect.getMetadata(MODULE_METADATA.IMPORTS, type) as ModuleRef[] | undefined) ?? []),
      ...((dynamic?.imports ?? []) as ModuleRef[]),
    ];
    for (const imported of imports) visit(imported);
    if (type !== ref) visit(type);
  };
  for (const module of modules) visit(module);
  return controllers;
}
