// What happens below the routes: requests node's HTTP server would answer in its own format (or not at all),
// Expect: 100-continue, and refusing a request whose body is still arriving without resetting the connection
// under the client.
import {
  type IncomingMessage,
  maxHeaderSize,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http'
import type { Socket } from 'node:net'
import type { ErrorStatus } from '../shared/api'
import { errorEnvelope } from './errors'

/**
 * How much of a refused request's body is read and thrown away. A client still sending reads the answer
 * meanwhile (fetch() gives up sending once it has it); closing at once would reset the connection and the
 * client would see EPIPE or "other side closed" instead of the answer.
 */
export const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024
/** How long a connection stays open after its answer before it is cut (so the answer is read first). */
const LINGER_MS = 2_000

/** Requests that asked for 100 Continue and have not been told to send their body yet. */
const awaitingContinue = new WeakSet<IncomingMessage>()
const discarding = new WeakSet<IncomingMessage>()

/**
 * Expect: 100-continue is answered only when the body is first read, so a request refused before that
 * (no credits, bad key, unsupported type) gets its final answer without inviting the body. Other
 * expectations are 417 in the envelope.
 */
export function handleExpectations(server: Server): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    awaitingContinue.add(req)
    const read = req._read
    req._read = function (size: number) {
      if (awaitingContinue.delete(req) && !res.headersSent) res.writeContinue()
      return read.call(this, size)
    }
    server.emit('request', req, res)
  })
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.stringify(
      errorEnvelope(
        417,
        `the Expect header ${JSON.stringify(req.headers.expect)} is not supported; send no Expect header or "100-continue"`,
      ),
    )
    res.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    })
    res.end(body)
  })
}

/**
 * Called as an error answer is about to be sent. A body not read yet is read and discarded (up to
 * DISCARD_LIMIT_BYTES, then the connection is cut once the answer had time to arrive), so the connection
 * stays in step and the client sees the answer. Returns true when the answer must close the connection:
 * a client still waiting for 100 Continue was never told to send, so its body may or may not follow.
 */
export function settleUnreadBody(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.complete || req.destroyed || discarding.has(req)) return false
  if (awaitingContinue.has(req)) return true
  discarding.add(req)
  // A parser still attached (a refused multipart upload) gets nothing more.
  req.unpipe()
  let discarded = 0
  const onData = (chunk: Buffer | string) => {
    discarded += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length
    if (discarded <= DISCARD_LIMIT_BYTES) return
    req.off('data', onData)
    req.pause()
    const cut = () => setTimeout(() => req.socket?.destroy(), LINGER_MS).unref()
    if (res.writableFinished) cut()
    else res.once('finish', cut)
  }
  req.on('data', onData)
  req.resume()
  return false
}

/**
 * fastify's clientErrorHandler: node's parser refused the request (headers too large, malformed HTTP,
 * timeout) before any route saw it. Answers in the envelope and closes the connection.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  // An answer already under way on this connection cannot be interrupted by another: it finishes first.
  const current = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
  const cut = () => setTimeout(() => socket.destroy(), LINGER_MS).unref()
  if (current?.headersSent) {
    if (current.writableFinished) cut()
    else current.once('finish', cut).once('close', cut)
    return
  }
  if (socket.writable) {
    // node adds the parser's reason and the packet it choked on to the error.
    const { status, message } = describeClientError(error as ParserError)
    const body = JSON.stringify(errorEnvelope(status, message))
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    )
  }
  cut()
}

type ParserError = Error & { code?: string; reason?: string; rawPacket?: Buffer }

function describeClientError(error: ParserError): { status: ErrorStatus; message: string } {
  const limit = `${maxHeaderSize / 1024} KiB`
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW': {
      // The packet being parsed starts with the request line when the URL alone overflowed the limit.
      const firstLine = /^[A-Z]+ [^\r\n]*/.exec(error.rawPacket?.toString('latin1') ?? '')?.[0] ?? ''
      if (firstLine.length > maxHeaderSize / 2) {
        return {
          status: 414,
          message: `the request URL is too long (the request line and headers may hold ${limit}); shorten it`,
        }
      }
      return {
        status: 431,
        message: `the request headers are larger than ${limit}; send fewer or shorter headers`,
      }
    }
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'the request did not arrive in time; send it again' }
  }
  const reason = error.reason ?? error.message
  return {
    status: 400,
    message: `the request is not valid HTTP/1.1 (${error.code ?? 'parse error'}: ${reason}); check how the request is framed`,
  }
}
