// The reader thread (crypto/file-read-worker.ts): its blobs are byte for byte those of encryptStream,
// its ring of reused buffers never overwrites a piece the consumer may still hold (checked piece by
// piece and through the real multipart + got + socket chain), and its failures end the stream with
// a clear error instead of hanging.
import { execFileSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import got from 'got'
import { afterAll, describe, expect, it } from 'vitest'
import { buildMultipartBody } from '../../src/main/core/uploads/multipart-body'
import { nativeAeadStatus } from '../../src/node-cipher/aead-native'
import {
  encryptFileInWorker,
  FILE_READ_PIECE_BYTES,
  FileReadWorker,
  readFileInWorker,
} from '../../src/node-cipher/file-read-worker'
import { encryptFile, readFileHere } from '../../src/node-cipher/file-seal-here'
import {
  CHUNK_SIZE,
  collectBytes,
  decryptStream,
  encryptedFileLength,
  encryptStream,
  FileCipherError,
  generateVaultKey,
  openEncryptedFile,
} from '../../src/vault-format/index'
import { descriptorsOn } from '../support/open-descriptors'

// The same behaviour from both readers: the reader thread (node:crypto), and this thread (the native
// AES-GCM, where it is built; test/crypto/aead-native.test.ts says when it is not).
const implementations = [
  { name: 'reader thread', encrypt: encryptFileInWorker, read: readFileInWorker },
  ...(nativeAeadStatus().inUse
    ? [{ name: 'this thread, native AES-GCM', encrypt: encryptFile, read: readFileHere }]
    : []),
]

const vaultKey = generateVaultKey()
const vaultId = 'vault-reader'
const saltPrefix = new Uint8Array(16).fill(9)
const dir = mkdtempSync(join(tmpdir(), 'vault-reader-test-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let fileCount = 0
function fileOf(bytes: Uint8Array): string {
  const path = join(dir, `file-${fileCount++}.bin`)
  writeFileSync(path, bytes)
  return path
}

// A fixed write time, so the blobs of both writers can be compared byte for byte.
const writtenAtMs = Date.UTC(2026, 10, 1, 12)
const identityOf = (bytes: Uint8Array) => ({ path: 'Photos/holiday.jpg', size: bytes.length, writtenAtMs })

function reference(bytes: Uint8Array): Promise<Uint8Array> {
  return collectBytes(encryptStream([bytes], { vaultKey, vaultId, saltPrefix, identity: identityOf(bytes) }))
}

/** Every piece kept as it is: only right for fresh buffers (reuseBuffers: false). */
async function kept(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = []
  for await (const piece of source) parts.push(piece)
  return Buffer.concat(parts)
}

/** Every piece copied as it comes: what a consumer that writes each piece out at once sees. */
async function copied(source: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Buffer[] = []
  for await (const piece of source) parts.push(Buffer.from(piece))
  return Buffer.concat(parts)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.each(implementations)('$name', ({ encrypt, read: readPlain }) => {
  describe('encrypting a file', () => {
    // The format-3 record of 'Photos/holiday.jpg' is 36 bytes: these sizes put the plaintext's end on,
    // just before and just after chunk and piece boundaries.
    const record = 36
    const piece = FILE_READ_PIECE_BYTES.plain
    const sizes = [
      0,
      1,
      CHUNK_SIZE - record,
      CHUNK_SIZE - record + 1,
      piece - record - 1,
      piece - record,
      piece - record + 1,
      3 * piece + 12345,
    ]

    it.each(sizes)('writes exactly what encryptStream writes (%i bytes)', async (size) => {
      const bytes = randomBytes(size)
      const path = fileOf(bytes)
      const expected = await reference(bytes)
      const opts = { vaultKey, vaultId, saltPrefix, identity: identityOf(bytes) }
      // Kept whole (fresh buffers), and copied piece by piece (the reused ring).
      const whole = await kept(encrypt(path, { ...opts, reuseBuffers: false }))
      expect(whole.length).toBe(encryptedFileLength(identityOf(bytes)))
      expect(whole.equals(expected)).toBe(true)
      expect(Buffer.from(await copied(encrypt(path, opts))).equals(expected)).toBe(true)
    })

    it('writes format 3: the write time given, or the time of writing, sealed in the record', async () => {
      const bytes = randomBytes(100)
      const path = fileOf(bytes)
      const open = async (blob: Uint8Array) => {
        const opened = await openEncryptedFile([blob], { vaultKey, vaultId })
        if (opened.kind !== 'file') throw new Error('not a file')
        expect(Buffer.from(await collectBytes(opened.body)).equals(bytes)).toBe(true)
        return opened
      }
      const given = await open(
        await copied(encrypt(path, { vaultKey, vaultId, identity: identityOf(bytes) })),
      )
      expect(given.version).toBe(3)
      expect(given.identity).toEqual(identityOf(bytes))
      const before = Date.now()
      const identity = { path: 'Photos/holiday.jpg', size: bytes.length }
      const stamped = await open(await copied(encrypt(path, { vaultKey, vaultId, identity })))
      expect(stamped.identity?.writtenAtMs).toBeGreaterThanOrEqual(before)
      expect(stamped.identity?.writtenAtMs).toBeLessThanOrEqual(Date.now())
    })

    it('decrypts to the file, with a random salt by default', async () => {
      const bytes = randomBytes(2 * piece + 777)
      const path = fileOf(bytes)
      const blob = await copied(encrypt(path, { vaultKey, vaultId, identity: identityOf(bytes) }))
      expect(Buffer.from(blob).equals(Buffer.from(await reference(bytes)))).toBe(false)
      const plain = await collectBytes(decryptStream([blob], { vaultKey, vaultId }))
      expect(Buffer.from(plain).equals(bytes)).toBe(true)
    })

    it('gives afterRead the SHA-256 of the file and holds the last piece until it returns', async () => {
      const bytes = randomBytes(piece + 5)
      const path = fileOf(bytes)
      const events: string[] = []
      const stream = encrypt(path, {
        vaultKey,
        vaultId,
        identity: identityOf(bytes),
        sha256: true,
        afterRead: async (end) => {
          events.push(`afterRead ${end.bytesRead} ${end.sha256}`)
          await sleep(20)
          events.push('checked')
        },
      })
      let pieces = 0
      for await (const _ of stream) {
        pieces++
        events.push(`piece ${pieces}`)
      }
      const sha = createHash('sha256').update(bytes).digest('hex')
      // header, the full piece, then the final piece only after the check.
      expect(events).toEqual(['piece 1', 'piece 2', `afterRead ${bytes.length} ${sha}`, 'checked', 'piece 3'])
    })
  })

  describe('the ring of reused buffers', () => {
    it('never changes a piece before the consumer asks for the piece after the next', async () => {
      const bytes = randomBytes(12 * FILE_READ_PIECE_BYTES.plain + 99)
      const path = fileOf(bytes)
      const expected = Buffer.from(await reference(bytes))
      const iterator = encrypt(path, { vaultKey, vaultId, saltPrefix, identity: identityOf(bytes) })
      // Hold the last two pieces as the socket would (one being written, one just received), with
      // their bytes as they were when received; the worker meanwhile fills every buffer it may.
      const held: { piece: Uint8Array; copy: Buffer }[] = []
      const parts: Buffer[] = []
      for (;;) {
        const step = await iterator.next()
        if (step.done) break
        const copy = Buffer.from(step.value)
        parts.push(copy)
        held.push({ piece: step.value, copy })
        await sleep(15)
        for (const h of held) expect(Buffer.from(h.piece).equals(h.copy)).toBe(true)
        if (held.length > 1) held.shift() // released when the next piece is asked for
      }
      expect(Buffer.concat(parts).equals(expected)).toBe(true)
    })

    it('is written to the socket intact through multipart, got and a slow reader at the other end', async () => {
      const bytes = randomBytes(10 * FILE_READ_PIECE_BYTES.plain + 4321)
      const path = fileOf(bytes)
      const expected = Buffer.from(await reference(bytes))
      const identity = identityOf(bytes)
      const body = buildMultipartBody([['filename', 'x']], {
        fieldName: 'file',
        filename: 'x.c2sp',
        contentType: 'application/octet-stream',
        length: encryptedFileLength(identity),
        content: () => encrypt(path, { vaultKey, vaultId, saltPrefix, identity }),
      })
      let received = Buffer.alloc(0)
      const server = createServer(async (request, response) => {
        // Read slowly, so the socket's buffers fill and the client waits on them.
        const parts: Buffer[] = []
        for await (const part of request) {
          parts.push(part as Buffer)
          request.pause()
          await sleep(2)
          request.resume()
        }
        received = Buffer.concat(parts)
        response.end('ok')
      })
      server.listen(0, '127.0.0.1')
      await once(server, 'listening')
      try {
        const { port } = server.address() as AddressInfo
        await got.post(`http://127.0.0.1:${port}/`, {
          headers: { 'content-type': body.contentType, 'content-length': String(body.contentLength) },
          body: body.stream(),
          retry: { limit: 0 },
        })
        expect(received.length).toBe(body.contentLength)
        const start = received.indexOf('\r\n\r\n', received.indexOf('name="file"')) + 4
        expect(received.subarray(start, start + expected.length).equals(expected)).toBe(true)
      } finally {
        server.close()
      }
    })
  })

  describe('reading a file', () => {
    it('reads the file as it is, with its SHA-256, in pieces of at most 1 MiB', async () => {
      for (const size of [0, 1, FILE_READ_PIECE_BYTES.plain, 3 * FILE_READ_PIECE_BYTES.plain + 1]) {
        const bytes = randomBytes(size)
        const path = fileOf(bytes)
        let sha256: string | undefined
        const lengths: number[] = []
        const parts: Buffer[] = []
        for await (const piece of readPlain(path, {
          size,
          sha256: true,
          afterRead: (end) => {
            sha256 = end.sha256
          },
        })) {
          lengths.push(piece.length)
          parts.push(Buffer.from(piece))
        }
        expect(Buffer.concat(parts).equals(bytes)).toBe(true)
        expect(sha256).toBe(createHash('sha256').update(bytes).digest('hex'))
        expect(lengths.every((n) => n > 0 && n <= FILE_READ_PIECE_BYTES.plain)).toBe(true)
      }
    })

    it('reads only the size it was given when the file grew', async () => {
      const bytes = randomBytes(5000)
      const path = fileOf(bytes)
      const read = await copied(readPlain(path, { size: 3000 }))
      expect(Buffer.from(read).equals(bytes.subarray(0, 3000))).toBe(true)
    })
  })

  describe('failures', () => {
    it('a missing file fails with a sentence naming it', async () => {
      const stream = encrypt(join(dir, 'gone.pdf'), {
        vaultKey,
        vaultId,
        identity: { path: 'gone.pdf', size: 10 },
      })
      await expect(copied(stream)).rejects.toThrow(
        /^gone\.pdf could not be read \(it no longer exists\), so nothing was stored\. Check that the file is still there/,
      )
    })

    it('a folder in place of the file fails with a sentence', async () => {
      const folder = join(dir, 'a-folder')
      mkdirSync(folder, { recursive: true })
      await expect(copied(readPlain(folder, { size: 10 }))).rejects.toThrow(
        /a-folder could not be read \(it is a folder\)/,
      )
    })

    it('a file that shrank before it was read: afterRead decides, the final chunk is never sealed', async () => {
      const bytes = randomBytes(2 * FILE_READ_PIECE_BYTES.plain)
      const path = fileOf(bytes)
      truncateSync(path, FILE_READ_PIECE_BYTES.plain + 10)
      const seen: number[] = []
      const released: Buffer[] = []
      const stream = encrypt(path, {
        vaultKey,
        vaultId,
        identity: identityOf(bytes),
        afterRead: (end) => {
          seen.push(end.bytesRead)
        },
      })
      let error: unknown
      try {
        for await (const piece of stream) released.push(Buffer.from(piece))
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(FileCipherError)
      expect((error as FileCipherError).message).toMatch(/ended after 1048586 of the 2097152 bytes announced/)
      expect(seen).toEqual([FILE_READ_PIECE_BYTES.plain + 10])
      // What was released is no complete blob: it does not decrypt to anything whole.
      await expect(
        collectBytes(decryptStream([Buffer.concat(released)], { vaultKey, vaultId })),
      ).rejects.toThrow(FileCipherError)
      // And the error stays.
      await expect(stream.next()).rejects.toBe(error)
    })

    it("afterRead's error fails the stream and the last piece is not released", async () => {
      const bytes = randomBytes(1000)
      const path = fileOf(bytes)
      const released: Uint8Array[] = []
      const stream = encrypt(path, {
        vaultKey,
        vaultId,
        identity: identityOf(bytes),
        afterRead: () => {
          throw new Error('holiday.jpg changed while it was being uploaded')
        },
      })
      await expect(
        (async () => {
          for await (const piece of stream) released.push(piece)
        })(),
      ).rejects.toThrow('holiday.jpg changed while it was being uploaded')
      expect(released.map((p) => p.length)).toEqual([56]) // the header only
    })
  })
})

describe('reader thread failures', () => {
  it('the reader thread dying mid-file fails the stream with a clear error, and the next stream works', async () => {
    const worker = new FileReadWorker()
    const bytes = randomBytes(16 * FILE_READ_PIECE_BYTES.plain)
    const path = fileOf(bytes)
    const stream = readFileInWorker(path, { size: bytes.length, worker })
    await stream.next()
    await worker.close()
    await expect(copied(stream)).rejects.toThrow(
      /^Reading file-\d+\.bin stopped because its reader thread ended unexpectedly \(exit code 1\); nothing was stored\. Retry/,
    )
    const again = await copied(readFileInWorker(path, { size: bytes.length, worker }))
    expect(Buffer.from(again).equals(bytes)).toBe(true)
    await worker.close()
  })

  it('lets its thread go once no stream has run for a while, and starts one for the next stream', async () => {
    const worker = new FileReadWorker({ idleReleaseMs: 50 })
    const bytes = randomBytes(3 * FILE_READ_PIECE_BYTES.plain + 5)
    const path = fileOf(bytes)
    for (let round = 0; round < 2; round++) {
      const read = await copied(readFileInWorker(path, { size: bytes.length, worker }))
      expect(Buffer.from(read).equals(bytes)).toBe(true)
      expect(worker.running).toBe(true)
      for (let waited = 0; worker.running && waited < 5000; waited += 20) await sleep(20)
      expect(worker.running).toBe(false)
    }
  })

  it('a thread that is stopping fails only its own streams, not those of the thread after it', async () => {
    const worker = new FileReadWorker()
    const bytes = randomBytes(16 * FILE_READ_PIECE_BYTES.plain)
    const path = fileOf(bytes)
    const first = readFileInWorker(path, { size: bytes.length, worker })
    await first.next()
    const closing = worker.close() // its exit comes while the next stream runs on a new thread
    const next = copied(readFileInWorker(path, { size: bytes.length, worker }))
    await expect(copied(first)).rejects.toThrow(/stopped because its reader thread ended unexpectedly/)
    expect(Buffer.from(await next).equals(bytes)).toBe(true)
    await closing
    await worker.close()
  })

  it.runIf(process.platform !== 'win32')(
    'return() ends a read still waiting on a stalled file, without hanging',
    async () => {
      // A named pipe stands for a file whose reads do not come back (a stalled network drive).
      const fifo = join(dir, 'stalled.fifo')
      execFileSync('mkfifo', [fifo])
      const worker = new FileReadWorker()
      const stream = readFileInWorker(fifo, { size: 10, worker })
      const pending = stream.next()
      await sleep(50)
      await stream.return?.()
      await expect(pending).resolves.toEqual({ done: true, value: undefined })
      // Let the reader thread go: open the pipe for writing and close it.
      closeSync(openSync(fifo, 'w'))
      await worker.close()
    },
  )

  it.runIf(process.platform === 'linux')('stopping early closes the file', async () => {
    const bytes = randomBytes(8 * FILE_READ_PIECE_BYTES.plain)
    const path = fileOf(bytes)
    const holding = () => descriptorsOn(path)
    const worker = new FileReadWorker()
    for await (const _ of readFileInWorker(path, { size: bytes.length, worker })) {
      expect(holding()).toBe(1)
      break
    }
    // The worker handles messages in order: once a later stream ended, it handled the stop.
    await copied(readFileInWorker(fileOf(randomBytes(10)), { size: 10, worker }))
    expect(holding()).toBe(0)
    await worker.close()
  })
})

describe.runIf(nativeAeadStatus().inUse)('this thread', () => {
  it('streams at once share released buffers, and never overwrite a piece still held', async () => {
    const files = [
      randomBytes(6 * FILE_READ_PIECE_BYTES.plain),
      randomBytes(5 * FILE_READ_PIECE_BYTES.plain + 7),
    ]
    const streams = files.map((bytes) => readFileHere(fileOf(bytes), { size: bytes.length }))
    const held = files.map(() => [] as { piece: Uint8Array; copy: Buffer }[])
    const done = files.map(() => false)
    while (!done.every(Boolean)) {
      for (const [k, stream] of streams.entries()) {
        if (done[k]) continue
        const step = await stream.next()
        // Asking for piece p released p - 2 (maybe to the other stream); p - 1 stays intact here, and the
        // other stream's last two pieces (it has not asked again) stay intact too.
        for (const [j, pieces] of held.entries())
          for (const { piece, copy } of pieces.slice(j === k ? -1 : -2))
            expect(Buffer.from(piece).equals(copy)).toBe(true)
        if (step.done) done[k] = true
        else held[k]!.push({ piece: step.value, copy: Buffer.from(step.value) })
      }
    }
    for (const [k, bytes] of files.entries())
      expect(Buffer.concat(held[k]!.map((h) => h.copy)).equals(bytes)).toBe(true)
  })

  it('a later stream reuses the buffers an earlier one released, instead of leaving them to the collector', async () => {
    // Two full pieces from the spare buffers and a short last one: the first is released when the last
    // is asked for, the second when the consumer asks once more and hears "done".
    const bytes = randomBytes(2 * FILE_READ_PIECE_BYTES.plain + 10)
    const path = fileOf(bytes)
    const first = new Set<ArrayBufferLike>()
    for await (const piece of readFileHere(path, { size: bytes.length })) first.add(piece.buffer)
    let reused = 0
    for await (const piece of readFileHere(path, { size: bytes.length }))
      if (first.has(piece.buffer)) reused++
    expect(reused).toBe(2)
  })

  it.runIf(process.platform !== 'win32')(
    'return() ends a read still waiting on a stalled file, without hanging',
    async () => {
      const fifo = join(dir, 'stalled-here.fifo')
      execFileSync('mkfifo', [fifo])
      const stream = readFileHere(fifo, { size: 10 })
      const pending = stream.next()
      await sleep(50)
      await stream.return?.()
      await expect(pending).resolves.toEqual({ done: true, value: undefined })
      await expect(stream.next()).resolves.toEqual({ done: true, value: undefined })
      // Let libuv's thread go: open the pipe for writing and close it.
      closeSync(openSync(fifo, 'w'))
    },
  )

  it.runIf(process.platform === 'linux')('stopping early closes the file', async () => {
    const bytes = randomBytes(8 * FILE_READ_PIECE_BYTES.plain)
    const path = fileOf(bytes)
    const holding = () => descriptorsOn(path)
    for await (const piece of encryptFile(path, { vaultKey, vaultId, identity: identityOf(bytes) })) {
      if (piece.length > 100) {
        expect(holding()).toBe(1)
        break
      }
    }
    await sleep(20)
    expect(holding()).toBe(0)
  })
})
