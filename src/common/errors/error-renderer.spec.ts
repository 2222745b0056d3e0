import { describe, expect, it } from '@jest/globals';
import { HttpException } from '@nestjs/common';
import { errorCodes } from 'fastify';
import { DomainError } from './domain-error.js';
import { renderError } from './error-renderer.js';

/** A lost database is 503 `servicio_no_disponible` with Retry-After — the engine's dialect tells it apart. */
describe('renderError: database connection failures', () => {
  const lost = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  const isUnavailable = (err: unknown) => (err as { code?: string }).code === 'ECONNREFUSED';

  it('renders an error the dialect calls a connection failure as a 503 problem with Retry-After', () => {
    const r = renderError(lost, { url: '/api/v1/admin/medios?x=1', id: 'c0ffee00-0000-4000-8000-000000000000' }, { isUnavailable });
    expect(r).toMatchObject({ status: 503, fault: true, headers: { 'retry-after': '5' }, contentType: 'application/problem+json; charset=utf-8' });
    expect(r.body).toMatchObject({ status: 503, code: 'servicio_no_disponible', instance: '/api/v1/admin/medios' });
    expect(JSON.stringify(r.body)).not.toContain('ECONNREFUSED');
  });

  it('finds the failure in the cause of a wrapping error', () => {
    const wrapped = new Error('transaction failed', { cause: lost });
    expect(renderError(wrapped, { url: '/x' }, { isUnavailable }).status).toBe(503);
  });

  it('answers {error, message} on fiscal routes', () => {
    const r = renderError(lost, { url: '/api/v1/admin/fiscal/tipos-iva' }, { isUnavailable });
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ error: 'servicio_no_disponible', message: expect.any(String) });
  });

  it('reads the fiscal prefix however the refused URL spelled it: escaped beside a malformed escape, or in absolute form', () => {
    const bad = new DomainError('validacion', 'La URL de la solicitud no es válida');
    for (const url of [
      '/api/v1/admin/fiscal/tipos-iva/%zz',
      '/api/v1/admin/%66iscal/tipos-iva/%zz',
      '/api/v1/%61dmin/fiscal/x/%E0%A4%A',
      'http://127.0.0.1:3000/api/v1/admin/fiscal/tipos-iva/%zz',
      'http://127.0.0.1:3000/api/v1/admin/%66iscal/tipos-iva/1',
    ])
      expect([url, renderError(bad, { url }).body]).toEqual([url, { error: 'validacion', message: expect.any(String) }]);
    for (const url of ['/api/v1/admin/medios/%zz', 'http://h/api/v1/admin/medios/%zz', '/api/v1/admin/fiscalia/%zz'])
      expect(renderError(bad, { url }).body).toMatchObject({ code: 'validacion' });
  });

  it('keeps any other unexpected error a 500 error_interno, and a domain error its own status', () => {
    expect(renderError(new Error('boom'), { url: '/x' }, { isUnavailable }).body).toMatchObject({ status: 500, code: 'error_interno' });
    expect(renderError(lost, { url: '/x' }).status).toBe(500); // without a dialect nothing is called an outage
    expect(renderError(new DomainError('duplicado', 'ya existe'), { url: '/x' }, { isUnavailable: () => true }).status).toBe(409);
  });
});

/**
 * Nest's Fastify adapter hands the filter Fastify's own client errors wrapped in an HttpException
 * with Fastify's English message; the answer's detail is the service's own, like every other one.
 */
describe('renderError: Fastify client errors wrapped by Nest', () => {
  const wrapped = (err: Error & { statusCode?: number }) => new HttpException(err.message, err.statusCode ?? 500, { cause: err });

  it.each([
    [new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(), 400, 'validacion', 'El cuerpo de la solicitud no es JSON válido'],
    [new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(), 400, 'validacion', 'El cuerpo de la solicitud no es JSON válido'],
    [new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), 413, 'payload_demasiado_grande', 'El cuerpo de la solicitud es demasiado grande'],
    [
      new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE('application/xml'),
      415,
      'tipo_de_contenido_no_soportado',
      'Tipo de contenido no soportado; use application/json',
    ],
    [new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH(), 400, 'validacion', 'La solicitud no es válida'],
  ])('%s → %i %s', (err, status, code, detail) => {
    for (const error of [wrapped(err), err]) {
      const r = renderError(error, { url: '/api/v1/admin/medios' });
      expect(r.status).toBe(status);
      expect(r.body).toMatchObject({ status, code, detail });
    }
  });

  it('keeps the message of an HttpException that wraps anything else', () => {
    const r = renderError(new HttpException('Formato de fecha inválido', 400, { cause: new Error('x') }), { url: '/x' });
    expect(r.body).toMatchObject({ status: 400, detail: 'Formato de fecha inválido' });
  });
});
