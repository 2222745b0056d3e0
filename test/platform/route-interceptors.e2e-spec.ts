import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Body, Controller, Get, Module, Post, Put, RequestMethod, type Type, UseInterceptors } from '@nestjs/common';
import { INTERCEPTORS_METADATA, METHOD_METADATA } from '@nestjs/common/constants.js';
import { ApplicationConfig, MetadataScanner, ModulesContainer } from '@nestjs/core';
import { AccessGuard } from '../../src/auth/access.guard.js';
import {
  NO_REQUEST_TRANSACTION,
  NoRequestTransaction,
  RequestTransactionInterceptor,
} from '../../src/common/transactions/request-transaction.interceptor.js';
import { bindRouteInterceptors } from '../../src/common/transactions/route-interceptors.js';
import { BodilessInterceptor } from '../../src/common/http/bodiless.interceptor.js';
import { Created } from '../../src/common/http/created.decorator.js';
import { LocationInterceptor } from '../../src/common/http/location.interceptor.js';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';
import { ETagInterceptor, VERSIONED_READ } from '../../src/common/versioning/etag.interceptor.js';
import { byId, Versioned } from '../../src/common/versioning/versioned.decorator.js';
import { TestApp } from '../support/test-app.js';

const interceptorsOf = (handler: unknown): unknown[] =>
  (Reflect.getMetadata(INTERCEPTORS_METADATA, handler as object) as unknown[] | undefined) ?? [];

class Probe {
  intercept() {}
}
class ProbeService {
  get(): Promise<object> {
    return Promise.resolve({});
  }
}
const PROBE = byId('probes', ProbeService, (s) => s.get());

@Controller('probes')
class ProbesController {
  @Get(':id') @Versioned(PROBE) read() {}
  @Get() list() {}
  @Post() @UseInterceptors(Probe) create(@Body() _body: unknown) {}
  @Put(':id') @Versioned(PROBE, 'change') update(@Body() _body: unknown) {}
  @Post(':id/deactivate') @Versioned(PROBE, 'change') deactivate() {}
  @Post('versioned') @Versioned(PROBE) @Created(ProbeService, () => '/probes/1', 'Created') createVersioned(@Body() _body: unknown) {}
  @Post('login') @NoRequestTransaction() login(@Body() _body: unknown) {}
  helper() {}
}
@Module({ controllers: [ProbesController] })
class ProbesModule {}
@Module({ imports: [ProbesModule] })
class OuterModule {}

describe('bindRouteInterceptors', () => {
  beforeAll(() => {
    bindRouteInterceptors([{ module: OuterModule }]);
    // a second application in the same process binds nothing twice
    bindRouteInterceptors([OuterModule]);
  });
  const p = ProbesController.prototype;

  it('puts the request transaction on mutating routes, ahead of their own interceptors', () => {
    expect(interceptorsOf(p.create)).toEqual([RequestTransactionInterceptor, Probe]);
  });
  it('puts the transaction, then the ETag, on a versioned change', () => {
    expect(interceptorsOf(p.update)).toEqual([RequestTransactionInterceptor, ETagInterceptor]);
  });
  it('refuses a body first on a mutating route that takes none, then the transaction and the ETag', () => {
    expect(interceptorsOf(p.deactivate)).toEqual([BodilessInterceptor, RequestTransactionInterceptor, ETagInterceptor]);
  });
  it('puts the Location of a @Created route innermost, after the transaction and the ETag', () => {
    expect(interceptorsOf(p.createVersioned)).toEqual([RequestTransactionInterceptor, ETagInterceptor, LocationInterceptor]);
  });
  it('gives a versioned read no interceptor but its metadata in the route config (the serialization hook tags it), and a plain read nothing', () => {
    expect(interceptorsOf(p.read)).toEqual([]);
    expect((Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, p.read) as Record<string, unknown>)[VERSIONED_READ]).toEqual({
      resource: PROBE,
      kind: 'read',
    });
    expect(interceptorsOf(p.list)).toEqual([]);
    expect(Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, p.list)).toBeUndefined();
  });
  it('leaves out routes marked @NoRequestTransaction, and methods that are not routes', () => {
    expect(interceptorsOf(p.login)).toEqual([]);
    expect(interceptorsOf(p.helper)).toEqual([]);
  });
});

describe('every mutating route of the application runs in the request transaction', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.create();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('binds RequestTransactionInterceptor first on each POST, PUT, PATCH and DELETE not opted out (after the refusal of a body where it takes none)', () => {
    const scanner = new MetadataScanner();
    const mutating = new Set([RequestMethod.POST, RequestMethod.PUT, RequestMethod.PATCH, RequestMethod.DELETE]);
    const routes: string[] = [];
    for (const module of t.app.get(ModulesContainer).values()) {
      for (const wrapper of module.controllers.values()) {
        const controller = wrapper.metatype as Type;
        for (const name of scanner.getAllMethodNames(controller.prototype)) {
          const handler = (controller.prototype as Record<string, object>)[name];
          if (!mutating.has(Reflect.getMetadata(METHOD_METADATA, handler))) continue;
          routes.push(`${controller.name}.${name}`);
          const optedOut = Reflect.getMetadata(NO_REQUEST_TRANSACTION, handler) ?? Reflect.getMetadata(NO_REQUEST_TRANSACTION, controller);
          const first = interceptorsOf(handler).filter((i) => i !== BodilessInterceptor)[0];
          // the route's name in the comparison: a failure says which route
          expect([`${controller.name}.${name}`, optedOut ? first !== RequestTransactionInterceptor : first]).toEqual([
            `${controller.name}.${name}`,
            optedOut ? true : RequestTransactionInterceptor,
          ]);
        }
      }
    }
    expect(routes.length).toBeGreaterThan(40);
  });

  it("runs no global interceptor and one global guard, the access guard: a read passes none of Nest's interceptor pipeline", () => {
    const config = t.app.get(ApplicationConfig);
    expect(config.getGlobalInterceptors()).toEqual([]);
    expect(config.getGlobalRequestInterceptors()).toEqual([]);
    expect(config.getGlobalGuards().map((guard) => guard.constructor)).toEqual([AccessGuard]);
  });
});
