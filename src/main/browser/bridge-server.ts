// Browser mode: serves the built renderer and the IPC handler table over loopback HTTP + WebSocket,
// so the real UI runs in an ordinary browser where Electron is unavailable (tests, no binary).
// Only this machine can connect (bound to 127.0.0.1), only pages from this origin (Host and Origin
// checked, against DNS rebinding and other sites), and only with the per-run token.
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { rm, stat } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { WebSocket, WebSocketServer } from 'ws'
import { AppError } from '../../shared/app-error'
import { INVOKE_CHANNEL_NAMES } from '../../shared/ipc/bridge'
import type { IpcResponse } from '../../shared/ipc/contract-kit'
import { dispatch, type EventHub, type HandlerTable } from '../core/ipc/handler-table'
import { decodedRequestPath, findRendererFile } from '../renderer-files'
import { type DropIntake, DropIntakeError } from './drop-intake'

export const BRIDGE_PATH = '/bridge'
/** Decrypted files offered to the page, each at a one-time address below this path. */
export const DOWNLOAD_PATH = '/download/'
/** An offered file nobody fetched is removed after this long. */
const DOWNLOAD_TTL_MS = 5 * 60_000
/**
 * Dropped bytes a connection may have handed to the intake and not yet seen on disk. Past this the
 * socket stops reading until the disk catches up, so memory stays bounded whatever the page sends (the
 * page keeps to a window of 8 chunks of 512 KiB, well under it).
 */
export const MAX_UNWRITTEN_DROP_BYTES = 8 * 1024 * 1024

export interface BrowserBridgeOptions {
  rendererDir: string
  handlers: HandlerTable
  events: EventHub
  port?: number
  token?: string
  /** Files dropped on the page, streamed in as bytes (a page has no paths). */
  intake?: { intake: DropIntake; needed(): ReadonlySet<string> }
}

export interface BrowserBridge {
  /** The URL to open, token included. */
  url: string
  port: number
  /**
   * Offers a decrypted file to the page as a download, once, at the address returned (the page has no
   * file system to open it from). The file's folder is removed once served, or unfetched after 5 minutes.
   */
  offerDownload(path: string, name: string): string
  close(): Promise<void>
}

interface InvokeMessage {
  type: 'invoke'
  id: number
  channel: string
  args?: unknown
}

/** A step of a drop: begin, file (then binary chunks), close-file, end, release, abort. */
interface IntakeMessage {
  type: 'intake'
  id: number
  op: 'begin' | 'file' | 'close-file' | 'end' | 'release' | 'abort'
  dropId?: string
  fileId?: number
  relativePath?: string
  size?: number
  lastModified?: number
}

function parseMessage(data: WebSocket.RawData): InvokeMessage | IntakeMessage | undefined {
  try {
    const message = JSON.parse(data.toString()) as Partial<InvokeMessage | IntakeMessage>
    if (!Number.isInteger(message.id)) return undefined
    if (message.type === 'invoke' && typeof message.channel === 'string') return message as InvokeMessage
    if (message.type === 'intake' && typeof message.op === 'string') return message as IntakeMessage
  } catch {
    // Malformed frames are dropped below.
  }
  return undefined
}

/** Chunk frames: a 4-byte file number, then the bytes. */
const CHUNK_HEADER_BYTES = 4

function answerFailure(response: ServerResponse): void {
  if (response.headersSent) response.destroy()
  else response.writeHead(500, { 'content-type': 'text/plain' }).end('The request failed.')
}

function dropFailed(userMessage: string, cause?: unknown): AppError {
  return new AppError({
    code: 'DROP_FAILED',
    userMessage,
    ...(cause !== undefined ? { detail: String(cause), cause } : {}),
  })
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

async function answerIntake(
  { intake, needed }: NonNullable<BrowserBridgeOptions['intake']>,
  message: IntakeMessage,
  drops: Set<string>,
): Promise<IpcResponse<unknown>> {
  const dropId = String(message.dropId ?? '')
  try {
    switch (message.op) {
      case 'begin': {
        const id = await intake.begin()
        drops.add(id)
        return { ok: true, value: { dropId: id } }
      }
      case 'file':
        return {
          ok: true,
          value: {
            fileId: await intake.openFile(
              dropId,
              String(message.relativePath ?? ''),
              Number(message.size),
              Number(message.lastModified),
            ),
          },
        }
      case 'close-file':
        await intake.closeFile(Number(message.fileId))
        return { ok: true, value: null }
      case 'end':
        return { ok: true, value: { paths: intake.end(dropId) } }
      case 'release':
        drops.delete(dropId)
        await intake.release(dropId, needed())
        return { ok: true, value: null }
      case 'abort':
        drops.delete(dropId)
        await intake.abort(dropId)
        return { ok: true, value: null }
    }
  } catch (error) {
    const failure =
      error instanceof DropIntakeError
        ? error
        : dropFailed('The dropped files could not be received. Drop them again.', error)
    return { ok: false, error: failure.toData() }
  }
  return { ok: false, error: dropFailed('Unknown drop step.').toData() }
}

export async function startBrowserBridge(options: BrowserBridgeOptions): Promise<BrowserBridge> {
  const token = options.token ?? randomBytes(24).toString('base64url')
  const { rendererDir } = options
  let port = 0
  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`])
  const allowedOrigins = () => new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`])

  // Nothing a request carries may stop the process: every handler's failure ends as an answer.
  const server: Server = createServer((request, response) => {
    serveStatic(request, response).catch(() => answerFailure(response))
  })

  // One-time addresses of decrypted files: unguessable, and gone once fetched.
  const offered = new Map<string, { path: string; name: string; expiry: NodeJS.Timeout }>()
  const removeOffered = (path: string) => rm(dirname(path), { recursive: true, force: true })

  async function serveDownload(id: string, response: ServerResponse): Promise<void> {
    const file = offered.get(id)
    if (!file) {
      response
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end('This download was already fetched or has expired. Open the file again from the app.')
      return
    }
    offered.delete(id)
    clearTimeout(file.expiry)
    try {
      const size = (await stat(file.path)).size
      response.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': size,
        'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      })
      await pipeline(createReadStream(file.path), response)
    } finally {
      await removeOffered(file.path)
    }
  }

  async function serveStatic(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!allowedHosts().has(request.headers.host ?? '')) {
      response.writeHead(421).end('Wrong host.')
      return
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405).end()
      return
    }
    const requested = URL.parse(request.url ?? '/', 'http://localhost')?.pathname ?? ''
    if (request.method === 'GET' && requested.startsWith(DOWNLOAD_PATH)) {
      await serveDownload(requested.slice(DOWNLOAD_PATH.length), response)
      return
    }
    const pathname = decodedRequestPath(request.url)
    if (pathname === undefined) {
      response.writeHead(400, { 'content-type': 'text/plain' }).end('Malformed address.')
      return
    }
    const file = await findRendererFile(rendererDir, pathname)
    if (!file) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found.')
      return
    }
    response.writeHead(200, file.headers)
    if (request.method === 'HEAD') response.end()
    else await pipeline(createReadStream(file.path), response)
  }

  const sockets = new WebSocketServer({
    noServer: true,
    maxPayload: 1024 * 1024,
  })

  server.on('upgrade', (request, socket, head) => {
    socket.on('error', () => socket.destroy())
    const url = URL.parse(request.url ?? '/', 'http://localhost')
    const authorised =
      url !== null &&
      url.pathname === BRIDGE_PATH &&
      allowedHosts().has(request.headers.host ?? '') &&
      allowedOrigins().has(request.headers.origin ?? '') &&
      sameSecret(url.searchParams.get('token') ?? '', token)
    if (!authorised) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n')
      return
    }
    sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit('connection', ws))
  })

  sockets.on('connection', (ws: WebSocket) => {
    const send = (message: unknown) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message))
    }
    const unsubscribe = options.events.subscribe((channel, payload) =>
      send({ type: 'event', channel, payload }),
    )
    const drops = new Set<string>()
    let unwritten = 0
    const settled = (bytes: number) => {
      unwritten -= bytes
      if (ws.isPaused && unwritten <= MAX_UNWRITTEN_DROP_BYTES / 2) ws.resume()
    }
    ws.on('close', () => {
      unsubscribe()
      // A closed page cannot finish its drops: what it sent and no upload needs is removed.
      const intake = options.intake
      if (!intake) return
      for (const dropId of drops) void intake.intake.release(dropId, intake.needed()).catch(() => undefined)
    })
    ws.on('error', () => ws.terminate())
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        const chunk = Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[])
        const intake = options.intake?.intake
        if (!intake || chunk.byteLength < CHUNK_HEADER_BYTES) {
          ws.close(1008, 'Unknown or malformed message')
          return
        }
        const fileId = chunk.readUInt32BE(0)
        unwritten += chunk.byteLength
        // Backpressure from the disk to the sender: no queue of chunks that grows with the file.
        if (unwritten > MAX_UNWRITTEN_DROP_BYTES) ws.pause()
        intake.write(fileId, chunk.subarray(CHUNK_HEADER_BYTES)).then(
          (received) => {
            settled(chunk.byteLength)
            send({ type: 'intake-ack', fileId, received })
          },
          (error: Error) => {
            settled(chunk.byteLength)
            send({ type: 'intake-error', fileId, message: error.message })
          },
        )
        return
      }
      const message = parseMessage(data)
      if (message?.type === 'intake' && options.intake) {
        answerIntake(options.intake, message, drops).then((response) =>
          send({ type: 'result', id: message.id, response }),
        )
        return
      }
      if (message?.type !== 'invoke' || !INVOKE_CHANNEL_NAMES.has(message.channel)) {
        ws.close(1008, 'Unknown or malformed message')
        return
      }
      dispatch(options.handlers, message.channel, message.args)
        .then((response) => {
          if (ws.readyState === WebSocket.OPEN)
            ws.send(JSON.stringify({ type: 'result', id: message.id, response }))
        })
        .catch(() => ws.close(1011, 'The request failed'))
    })
  })

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => resolveListen())
  })
  port = (server.address() as AddressInfo).port

  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    offerDownload: (path, name) => {
      const id = randomBytes(24).toString('base64url')
      const expiry = setTimeout(() => {
        offered.delete(id)
        void removeOffered(path)
      }, DOWNLOAD_TTL_MS)
      expiry.unref()
      offered.set(id, { path, name, expiry })
      return `${DOWNLOAD_PATH}${id}`
    },
    close: async () => {
      for (const [id, file] of offered) {
        clearTimeout(file.expiry)
        offered.delete(id)
        await removeOffered(file.path)
      }
      for (const client of sockets.clients) client.terminate()
      sockets.close()
      server.closeAllConnections()
      await new Promise<void>((done) => server.close(() => done()))
    },
  }
}
