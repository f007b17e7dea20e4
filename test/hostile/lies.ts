// Ways of answering that the fakes share: redirects, answers too large, answers that never end,
// answers that drip, answers cut short.
import { randomBytes } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { pause } from './hostile-world'

export function redirect(response: ServerResponse, location: string, status = 307): true {
  response.writeHead(status, { location, 'content-length': 0 })
  response.end()
  return true
}

/**
 * Streams `pieces` forever (a body with no length that never ends), until the client hangs up or
 * `safetyBytes` went out: the bound keeps a broken client from filling the test machine's disk.
 */
export async function endless(
  response: ServerResponse,
  options: {
    head?: Buffer
    piece?: () => Buffer
    everyMs?: number
    safetyBytes?: number
    contentType?: string
  } = {},
): Promise<true> {
  response.writeHead(200, { 'content-type': options.contentType ?? 'application/octet-stream' })
  let sent = 0
  let open = true
  response.on('close', () => {
    open = false
  })
  if (options.head) {
    response.write(options.head)
    sent += options.head.length
  }
  const piece = options.piece ?? (() => randomBytes(64 * 1024))
  const safety = options.safetyBytes ?? 64 * 1024 * 1024
  while (open && sent < safety) {
    const next = piece()
    sent += next.length
    if (!response.write(next)) await drained(response)
    if (options.everyMs) await pause(options.everyMs)
  }
  response.destroy()
  return true
}

/** Until the response can take more, or is gone; the listener that did not fire is removed too. */
function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done).off('close', done)
      resolve()
    }
    response.on('drain', done).on('close', done)
  })
}

/** A well-formed JSON envelope of about `bytes` bytes (a list of long strings). */
export async function hugeJson(response: ServerResponse, bytes: number): Promise<true> {
  const filler = `"${'x'.repeat(64 * 1024)}",`
  response.writeHead(200, { 'content-type': 'application/json' })
  let open = true
  response.on('close', () => {
    open = false
  })
  response.write('{"data":[')
  for (let sent = 0; open && sent < bytes; sent += filler.length) {
    if (!response.write(filler)) await drained(response)
  }
  response.end('"end"],"meta":{"total":0}}')
  return true
}

/** One byte every `everyMs` of `text`, then the end: a drip that keeps every socket timeout happy. */
export async function drip(
  response: ServerResponse,
  text: string,
  everyMs: number,
  contentType = 'application/json',
): Promise<true> {
  response.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) })
  let open = true
  response.on('close', () => {
    open = false
  })
  for (const char of text) {
    if (!open) return true
    response.write(char)
    await pause(everyMs)
  }
  response.end()
  return true
}

/** The first `keep` bytes of `bytes` under a Content-Length of all of them, then the connection dropped. */
export async function cutShort(response: ServerResponse, bytes: Buffer, keep: number): Promise<true> {
  response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length })
  response.write(bytes.subarray(0, keep))
  await pause(20)
  response.destroy()
  return true
}
