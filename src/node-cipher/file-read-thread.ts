// The reader thread of file-read-worker.ts: reads files in pieces of 1 MiB (one batch of chunks) and,
// when asked, seals each piece as it goes (the format's sealBatch, native AES-GCM or node:crypto), posting the
// pieces to the main thread. It serves many streams at once; each has a few credits (pieces it may
// send ahead) and hands finished buffers back for reuse.

import { createHash, type Hash } from 'node:crypto'
import { closeSync, openSync, readSync } from 'node:fs'
import { parentPort } from 'node:worker_threads'
import type { ChunkAead } from '../vault-format/batch-api'
import { BATCH_PLAIN, BATCH_SEALED, CHUNK_SIZE, sealBatch } from '../vault-format/batch-api'
import { nativeAeadBackend } from './aead-native'
import { nodeAeadBackend } from './aead-node'

/** GC pacing for node:crypto: a short-lived array per sealed chunk brings a scavenge every ~4 MB (file-read-worker.ts, YOUNG_MB). */
const PACING_SLOTS = 512

/** From the main thread. */
export type ReadRequest =
  | {
      op: 'start'
      id: number
      path: string
      size: number
      credits: number
      sha256: boolean
      /** For encryption: the message key and base nonce, and the plaintext to seal before the file's bytes. */
      key?: Uint8Array
      baseNonce?: Uint8Array
      prefix?: Uint8Array
    }
  | { op: 'more'; id: number; buffer?: ArrayBuffer }
  | { op: 'stop'; id: number }

/** To the main thread. */
export type ReadMessage =
  | {
      id: number
      type: 'piece'
      buffer: ArrayBuffer
      length: number
      last: boolean
      bytesRead: number
      sha256?: string
    }
  | { id: number; type: 'short'; bytesRead: number }
  | { id: number; type: 'error'; code?: string; message: string }

interface Job {
  id: number
  fd: number
  size: number
  read: number
  credits: number
  /** Buffers the consumer handed back. */
  free: Uint8Array[]
  prefix: Uint8Array | null
  /** When encrypting: the sealer, the index of the next chunk and the plaintext buffer. */
  seal: { aead: ChunkAead; index: number; plain: Uint8Array } | null
  hash: Hash | null
}

const port = parentPort!
const jobs = new Map<number, Job>()
// biome-ignore lint/correctness/noUnusedVariables: only written: each new array is garbage that paces the collector
let pacing: unknown[] | undefined

function post(message: ReadMessage, transfer: ArrayBuffer[] = []): void {
  port.postMessage(message, transfer)
}

/** Reads up to n bytes at the job's position into buf[at..]; fewer only at the end of the file. */
function readInto(job: Job, buf: Uint8Array, at: number, n: number): number {
  let got = 0
  while (got < n) {
    const r = readSync(job.fd, buf, at + got, n - got, job.read + got)
    if (r === 0) break
    got += r
  }
  if (job.hash && got > 0) job.hash.update(buf.subarray(at, at + got))
  job.read += got
  return got
}

function send(job: Job, out: Uint8Array, length: number, last: boolean): void {
  job.credits--
  const sha256 = last && job.hash ? job.hash.digest('hex') : undefined
  const buffer = out.buffer as ArrayBuffer
  post({ id: job.id, type: 'piece', buffer, length, last, bytesRead: job.read, sha256 }, [buffer])
  if (last) finish(job)
}

function produce(job: Job): void {
  const out = job.free.pop() ?? new Uint8Array(job.seal ? BATCH_SEALED : BATCH_PLAIN)
  const into = job.seal ? job.seal.plain : out
  let fill = 0
  if (job.prefix) {
    into.set(job.prefix)
    fill = job.prefix.length
    job.prefix = null
  }
  const n = Math.min(job.size - job.read, BATCH_PLAIN - fill)
  const got = readInto(job, into, fill, n)
  fill += got
  if (got < n) {
    // The file ended early. When encrypting, no final chunk is sealed: no complete blob of the
    // wrong size ever exists.
    job.free.push(out)
    post({ id: job.id, type: 'short', bytesRead: job.read })
    finish(job)
    return
  }
  if (!job.seal) {
    send(job, out, fill, job.read === job.size)
    return
  }
  // A full piece is never the final one (the final chunk is always short).
  const final = fill < BATCH_PLAIN
  const sealed = sealBatch(
    job.seal.aead,
    final ? job.seal.plain.subarray(0, fill) : job.seal.plain,
    job.seal.index,
    final,
    out,
  )
  job.seal.index += Math.floor(fill / CHUNK_SIZE)
  send(job, out, sealed.length, final)
}

function pump(job: Job): void {
  try {
    while (jobs.has(job.id) && job.credits > 0) produce(job)
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException
    post({ id: job.id, type: 'error', code, message })
    finish(job)
  }
}

function finish(job: Job): void {
  if (!jobs.delete(job.id)) return
  try {
    closeSync(job.fd)
  } catch {}
}

/**
 * The native sealer, which writes into the piece and leaves no garbage; else node:crypto's, with GC
 * pacing after each chunk (see PACING_SLOTS).
 */
function sealerFor(key: Uint8Array, baseNonce: Uint8Array): ChunkAead {
  const native = nativeAeadBackend()
  if (native) return native.create(key, baseNonce)
  const aead = nodeAeadBackend.create(key, baseNonce)
  return {
    sealInto(index, plaintext, out, offset) {
      aead.sealInto(index, plaintext, out, offset)
      pacing = new Array(PACING_SLOTS)
    },
    open: (index, sealed) => aead.open(index, sealed),
  }
}

port.on('message', (m: ReadRequest) => {
  if (m.op === 'start') {
    let fd: number
    try {
      fd = openSync(m.path, 'r')
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException
      post({ id: m.id, type: 'error', code, message })
      return
    }
    const job: Job = {
      id: m.id,
      fd,
      size: m.size,
      read: 0,
      credits: m.credits,
      free: [],
      prefix: m.prefix ?? null,
      seal:
        m.key && m.baseNonce
          ? { aead: sealerFor(m.key, m.baseNonce), index: 0, plain: new Uint8Array(BATCH_PLAIN) }
          : null,
      hash: m.sha256 ? createHash('sha256') : null,
    }
    // The sealer holds its own copy of the key: node:crypto's KeyObject (which gives no way to wipe it)
    // or the native context (wiped when it is collected).
    m.key?.fill(0)
    jobs.set(m.id, job)
    pump(job)
    return
  }
  const job = jobs.get(m.id)
  if (!job) return
  if (m.op === 'stop') {
    finish(job)
    return
  }
  // op 'more': a credit, and the buffer of a piece the consumer released (if it gave one back).
  job.credits++
  if (m.buffer) job.free.push(new Uint8Array(m.buffer))
  pump(job)
})
