import { HttpException } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { renderError } from './error-renderer.js';

/**
 * Answers what Node's HTTP parser refuses before a request exists — a garbage request line,
 * headers over the size limit, a request that never completes — in the contract's problem shape,
 * with a correlation id and no-store, instead of Node's `{"error":"Bad Request",…}` text. Written
 * straight to the socket (there is no request or reply object yet), then the connection is closed
 * since what follows on it cannot be trusted.
 */
export function sendClientError(error: Error & { code?: string }, socket: Duplex, securityHeaders: Readonly<Record<string, string>>): void {
  // a reset connection has nobody to answer
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, detail] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Los encabezados de la solicitud son demasiado grandes']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'La solicitud no se completó a tiempo']
        : [400, 'La solicitud HTTP está mal formada'];
  const correlationId = randomUUID();
  const rendered = renderError(new HttpException(detail, status), { url: '', id: correlationId });
  const body = JSON.stringify(rendered.body);
  const headers: Record<string, string | number> = {
    ...securityHeaders,
    'content-type': rendered.contentType,
    'content-length': Buffer.byteLength(body),
    'x-correlation-id': correlationId,
    'cache-control': 'no-store',
    connection: 'close',
  };
  if (socket.writable) {
    const head = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}`)
      .join('\r\n');
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n\r\n${body}`);
  }
  socket.destroy(error);
}
