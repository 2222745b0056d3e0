import { HttpException } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { RawRequestContext } from '../common.module.js';
import { correlationIdFrom } from '../context/request-context.js';
import { renderError } from './error-renderer.js';

/** The socket's latest request, as createApp's first hook records it. */
export const IN_FLIGHT = Symbol('request in flight');

export interface SocketWithRequest {
  [IN_FLIGHT]?: RawRequestContext;
}

/**
 * Answers what Node's HTTP parser refuses before a request exists — a garbage request line,
 * headers over the size limit, a request that never completes — in the contract's problem shape,
 * with a correlation id and no-store, instead of Node's `{"error":"Bad Request",…}` text. Written
 * straight to the socket (there is no request or reply object yet), then the connection is closed
 * since what follows on it cannot be trusted.
 */
export function sendClientError(
  error: Error & { code?: string },
  socket: Duplex,
  securityHeaders: Readonly<Record<string, string>>,
  recordRefused: (status: number, correlationId: string) => void,
): void {
  // a reset connection has nobody to answer
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // a request fastify began whose body never arrived whole: its answer carries the request's
  // correlation id and path
  const inFlight = (socket as SocketWithRequest)[IN_FLIGHT];
  const unfinished = inFlight && !inFlight.complete ? inFlight : undefined;
  // Bytes that came after a request read whole, which is still being answered: that request runs
  // on and may commit, so its own answer goes out first, and this refusal of what followed it
  // after (answers keep the order of the requests). Written now, the 400 would read as the answer
  // to a change that went through.
  const answering = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (!unfinished && answering && !answering.writableFinished) {
    const refuse = () => sendClientError(error, socket, securityHeaders, recordRefused);
    answering.once('finish', refuse);
    answering.once('close', () => {
      answering.off('finish', refuse);
      if (!answering.writableFinished) socket.destroy(); // its answer was cut short: nothing more to say
    });
    return;
  }
  const [status, detail] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Los encabezados de la solicitud son demasiado grandes']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'La solicitud no se completó a tiempo']
        : [400, 'La solicitud HTTP está mal formada'];
  // its log line and sample say what was answered, not a client that gave up (request telemetry);
  // a connection that ended in the middle of the body is a client that gave up (499)
  if (unfinished && error.code !== 'HPE_INVALID_EOF_STATE') unfinished.answeredBelow = status;
  const correlationId = unfinished?.correlationId ?? randomUUID();
  // one refused before fastify had a request has no hook to record it: recorded here
  if (!unfinished) recordRefused(status, correlationId);
  const { headers, body } = rawProblem(status, detail, unfinished?.url ?? requestTarget(error), correlationId, securityHeaders);
  if (socket.writable) {
    socket.write(rawResponse(status, headers, body));
  }
  socket.destroy(error);
}

/**
 * The path of the request line in the bytes the parser refused, when they begin with one (their
 * `rawPacket`; a later chunk of an over-long head holds none): a request refused on a fiscal route
 * answers in that route's shape, and any answer names its path as `instance`. Only the path, never
 * the query; empty when there is no request line to read.
 */
export function requestTarget(error: Error & { rawPacket?: unknown }): string {
  if (!Buffer.isBuffer(error.rawPacket)) return '';
  const head = error.rawPacket.subarray(0, 4096).toString('latin1');
  return /^[A-Z]{1,16} (\/[^\s?#]*)/.exec(head)?.[1] ?? '';
}

/**
 * Answers a request whose `Expect` is not `100-continue` (Node's server asks through its
 * `checkExpectation` event, and without a listener answers a bare 417 of its own, with none of the
 * service's headers): 417 in the problem shape, with the client's correlation id when it is a GUID,
 * and the connection closed, as the body that may follow is never read.
 */
export function answerExpectationFailed(
  request: IncomingMessage,
  response: ServerResponse,
  securityHeaders: Readonly<Record<string, string>>,
  recordRefused: (status: number, correlationId: string) => void,
): void {
  const detail = 'El encabezado Expect solo admite 100-continue; envíe la solicitud sin él';
  const correlationId = correlationIdFrom(request.headers['x-correlation-id']);
  recordRefused(417, correlationId);
  const { headers, body } = rawProblem(417, detail, request.url ?? '', correlationId, securityHeaders);
  response.writeHead(417, headers).end(body);
}

/**
 * Answers a CONNECT request. Node hands it to the server's `connect` event with the bare socket
 * (it would become a tunnel: no route can take it), and without a listener closes the connection
 * with no answer at all. The service tunnels nothing: 404 like any method no route answers (TRACE,
 * PROPFIND…), in the problem shape of the path it names, with a correlation id, and the connection
 * closed.
 */
export function answerConnect(
  request: IncomingMessage,
  socket: Socket,
  securityHeaders: Readonly<Record<string, string>>,
  recordRefused: (status: number, correlationId: string) => void,
): void {
  // Node took its own listeners off the socket before handing it over: without one of ours, a
  // client that resets the connection would raise an 'error' nobody handles and end the process
  socket.on('error', () => socket.destroy());
  // nor does any request timeout watch it any more: a client that keeps its side open is cut off
  socket.setTimeout(CONNECT_LINGER_MS, () => socket.destroy());
  const correlationId = correlationIdFrom(request.headers['x-correlation-id']);
  recordRefused(404, correlationId);
  const target = request.url ?? '';
  const { headers, body } = rawProblem(404, 'El recurso no existe', target.startsWith('/') ? target : '', correlationId, securityHeaders);
  if (socket.writable) socket.end(rawResponse(404, headers, body), () => socket.destroy());
  else socket.destroy();
}

const CONNECT_LINGER_MS = 5_000;

/** An HTTP/1.1 answer as the bytes written to a socket. */
function rawResponse(status: number, headers: Record<string, string | number>, body: string): string {
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\r\n');
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n\r\n${body}`;
}

/** The headers and body of a problem answered below fastify, where there is no reply to send it. */
function rawProblem(
  status: number,
  detail: string,
  url: string,
  correlationId: string,
  securityHeaders: Readonly<Record<string, string>>,
): { headers: Record<string, string | number>; body: string } {
  const rendered = renderError(new HttpException(detail, status), { url, id: correlationId });
  const body = JSON.stringify(rendered.body);
  const headers: Record<string, string | number> = {
    ...securityHeaders,
    'content-type': rendered.contentType,
    'content-length': Buffer.byteLength(body),
    'x-correlation-id': correlationId,
    'cache-control': 'no-store',
    connection: 'close',
  };
  return { headers, body };
}
