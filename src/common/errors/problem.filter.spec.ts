import { describe, expect, it } from '@jest/globals';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from './problem.filter.js';

/** The log line of a server fault names the request, never the secrets its query string may carry. */
describe('sendError', () => {
  it('logs a fault with the URL’s token and password parameters redacted', () => {
    const lines: unknown[][] = [];
    const request = {
      id: '0f8fad5b-d9cb-469f-a165-70867728950e',
      method: 'GET',
      url: '/api/v1/admin/medios?password=HUNTER2&x=1&token=T0K&access_token=A&refresh_token=R',
      routeOptions: { url: '/api/v1/admin/medios' },
      headers: {},
    } as unknown as FastifyRequest;
    const reply = { sent: false, status: () => reply, header: () => reply, send: () => reply } as unknown as FastifyReply;
    sendError(new Error('the database went away'), request, reply, { error: (...args: unknown[]) => lines.push(args) });
    expect(lines).toHaveLength(1);
    const fields = lines[0]![0] as { url: string };
    expect(fields.url).toBe('/api/v1/admin/medios?password=[redacted]&x=1&token=[redacted]&access_token=[redacted]&refresh_token=[redacted]');
    expect(JSON.stringify(lines)).not.toMatch(/HUNTER2|T0K/);
  });

  it('redacts the names as the query parser reads them (escaped, in any case) and the camelCase names of secrets', () => {
    const lines: unknown[][] = [];
    const query =
      '%70assword=E1&pass%77ord=E2&%74oken=E3&access%5Ftoken=E4&PASSWORD=E5&pass+word=ok&newPassword=E6&currentpassword=E7&accessToken=E8&refreshToken=E9&temporaryPassword=E10&bad%ZZ=ok&password';
    const request = {
      id: '0f8fad5b-d9cb-469f-a165-70867728950e',
      method: 'GET',
      url: `/api/v1/users?${query}`,
      routeOptions: { url: '/api/v1/users' },
      headers: {},
    } as unknown as FastifyRequest;
    const reply = { sent: false, status: () => reply, header: () => reply, send: () => reply } as unknown as FastifyReply;
    sendError(new Error('the database went away'), request, reply, { error: (...args: unknown[]) => lines.push(args) });
    const fields = lines[0]![0] as { url: string };
    expect(fields.url).toBe(
      '/api/v1/users?%70assword=[redacted]&pass%77ord=[redacted]&%74oken=[redacted]&access%5Ftoken=[redacted]&PASSWORD=[redacted]&pass+word=ok' +
        '&newPassword=[redacted]&currentpassword=[redacted]&accessToken=[redacted]&refreshToken=[redacted]&temporaryPassword=[redacted]&bad%ZZ=ok&password',
    );
    expect(JSON.stringify(lines)).not.toMatch(/E\d/);
  });
});
