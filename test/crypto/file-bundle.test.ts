import { createHash } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cipherByName, nodeCipher } from '../../src/node-cipher'
import type { ByteSource } from '../../src/vault-format/byte-queue'
import { utf8 } from '../../src/vault-format/bytes'
import { encryptChunked } from '../../src/vault-format/chunked-stream'
import { bundleContext, readBundle } from '../../src/vault-format/file-bundle'
import { manifestContext } from '../../src/vault-format/file-context'
import { checkPathSet } from '../../src/vault-format/file-identity'
import {
  BUNDLE_FORMAT_MAX_FILES,
  type BundleSourceEntry,
  CHUNK_SIZE,
  collectBytes,
  decryptChunked,
  decryptStream,
  deriveFilesKey,
  encryptBundleStream,
  encryptedBundleLength,
  encryptedLength,
  encryptedManifestLength,
  encryptManifest,
  encryptStream,
  FileCipherError,
  type FileIdentity,
  generateVaultKey,
  HEADER_SIZE,
  type OpenedBundle,
  openEncryptedFile,
  SEALED_CHUNK_SIZE,
  type VaultManifest,
} from '../../src/vault-format/index'
import { encryptBundleV1 } from './support/legacy-writers'

const vaultKey = generateVaultKey()
const vaultId = 'vault-bundle-test'

function bytesOf(seed: number, length: number): Uint8Array {
  const out = new Uint8Array(length)
  let x = seed * 2654435761 + 1
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0
    out[i] = x >>> 24
  }
  return out
}

/**
 * A content source that reuses one buffer, like the app's file reader: each piece is overwritten as
 * soon as the next one is asked for, so anything that kept a piece would see garbage.
 */
function reusing(bytes: Uint8Array, pieceSize: number): () => AsyncIterable<Uint8Array> {
  return async function* () {
    const buffer = new Uint8Array(pieceSize)
    for (let at = 0; at < bytes.length; at += pieceSize) {
      const n = Math.min(pieceSize, bytes.length - at)
      buffer.set(bytes.subarray(at, at + n))
      yield buffer.subarray(0, n)
      buffer.fill(0xee)
    }
  }
}

interface TestFile {
  path: string
  content: Uint8Array
}

function entriesFor(files: TestFile[], pieceSize = 7000): BundleSourceEntry[] {
  return files.map((f) => ({
    identity: { path: f.path, size: f.content.length },
    content: reusing(f.content, pieceSize),
  }))
}

async function openBundle(blob: Uint8Array | ByteSource, backend?: 'node' | 'noble') {
  const opened = await openEncryptedFile(blob instanceof Uint8Array ? [blob] : blob, {
    vaultKey,
    vaultId,
    ...cipherByName(backend),
  })
  if (opened.kind !== 'bundle') throw new Error('expected a bundle')
  return opened
}

/** Reads every entry fully; returns the contents by path (copies: pieces may be reused). */
async function readAll(opened: OpenedBundle): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>()
  for await (const entry of opened.entries) {
    const parts: Buffer[] = []
    for await (const piece of entry.body) parts.push(Buffer.from(piece))
    out.set(entry.identity.path, Buffer.concat(parts))
  }
  return out
}

/** The Cobblestone plaintext sealed as a bundle, whatever it holds (to test the reader's rules). */
async function sealBundlePlaintext(plaintext: Uint8Array, version: 1 | 2 = 2): Promise<Uint8Array> {
  return collectBytes(
    encryptChunked([plaintext], {
      inputKey: deriveFilesKey(vaultKey),
      context: bundleContext(vaultId, version),
    }),
  )
}

/**
 * A bundle header written by hand from FORMAT.md 3.9, without the writer's checks: version 2
 * (writtenAt, count, manifestLength, records with write times) unless told, or version 1.
 */
function header(
  createdAt: number,
  files: FileIdentity[],
  version: 1 | 2 = 2,
  manifestLength = 0,
): Uint8Array {
  const parts: Buffer[] = []
  const fixed = Buffer.alloc(version === 2 ? 16 : 12)
  fixed.writeBigUInt64BE(BigInt(createdAt), 0)
  fixed.writeUInt32BE(files.length, 8)
  if (version === 2) fixed.writeUInt32BE(manifestLength, 12)
  parts.push(fixed)
  for (const f of files) {
    const path = Buffer.from(f.path, 'utf8')
    const record = Buffer.alloc(version === 2 ? 18 : 10)
    record.writeBigUInt64BE(BigInt(f.size), 0)
    if (version === 2) record.writeBigUInt64BE(BigInt(f.writtenAtMs ?? createdAt), 8)
    record.writeUInt16BE(path.length, version === 2 ? 16 : 8)
    parts.push(record, path)
  }
  return Buffer.concat(parts)
}

const sample: TestFile[] = [
  { path: 'notes/todo.txt', content: new TextEncoder().encode('buy milk\n') },
  { path: 'notes/empty.txt', content: new Uint8Array(0) },
  { path: 'photos/über große Katze.jpg', content: bytesOf(1, 40_000) },
  { path: 'a.bin', content: bytesOf(2, CHUNK_SIZE) },
  { path: 'last.bin', content: bytesOf(3, 1234) },
]

describe('encryptBundleStream', () => {
  it('round-trips through openEncryptedFile, both backends, from sources that reuse their buffers', async () => {
    for (const backend of ['node', 'noble'] as const) {
      const blob = await collectBytes(
        encryptBundleStream(entriesFor(sample), {
          vaultKey,
          vaultId,
          ...cipherByName(backend),
          createdAtMs: 1_700_000_000_123,
        }),
      )
      const opened = await openBundle(blob, backend)
      expect(opened.createdAtMs).toBe(1_700_000_000_123)
      expect(opened.version).toBe(2)
      expect(opened.manifest).toBeNull()
      // Each file carries the bundle's write time, sealed in its record.
      expect(opened.files).toEqual(
        sample.map((f) => ({ path: f.path, size: f.content.length, writtenAtMs: 1_700_000_000_123 })),
      )
      const back = await readAll(opened)
      expect([...back.keys()]).toEqual(sample.map((f) => f.path))
      for (const f of sample) expect(Buffer.from(back.get(f.path)!).equals(Buffer.from(f.content))).toBe(true)
    }
  })

  it('round-trips with worker threads and with ciphertext read in odd pieces', async () => {
    const blob = await collectBytes(
      encryptBundleStream(entriesFor(sample, 1 << 20), { vaultKey, vaultId, ...nodeCipher(true) }),
    )
    const pieces = function* () {
      for (let at = 0; at < blob.length; at += 999) yield blob.subarray(at, at + 999)
    }
    const back = await readAll(await openBundle(pieces()))
    for (const f of sample) expect(Buffer.from(back.get(f.path)!).equals(Buffer.from(f.content))).toBe(true)
  })

  it('opens each content source only when the bundle reaches it, in order', async () => {
    const events: string[] = []
    const entries: BundleSourceEntry[] = sample.map((f) => ({
      identity: { path: f.path, size: f.content.length },
      content: () => {
        events.push(`open ${f.path}`)
        return (async function* () {
          yield f.content
          events.push(`end ${f.path}`)
        })()
      },
    }))
    const stream = encryptBundleStream(entries, { vaultKey, vaultId })
    expect(events).toEqual([])
    await collectBytes(stream)
    expect(events).toEqual(sample.flatMap((f) => [`open ${f.path}`, `end ${f.path}`]))
  })

  it('the blob is exactly encryptedBundleLength bytes: 56 + P + 16 * (floor(P / 16384) + 1)', async () => {
    const pathArb = fc.stringMatching(/^[a-z]{1,12}(\/[a-z0-9 ]{1,8}){0,2}$/)
    await fc.assert(
      fc.asyncProperty(
        fc
          .uniqueArray(fc.record({ path: pathArb, size: fc.integer({ min: 0, max: 40_000 }) }), {
            minLength: 1,
            maxLength: 6,
            selector: (f) => f.path,
          })
          // Only sets a bundle may hold: 'a' beside 'a/b' is refused (tested below).
          .filter((files) => checkPathSet(files.map((f) => f.path)) === null),
        async (files) => {
          const entries = files.map((f, i) => ({
            identity: f,
            content: reusing(bytesOf(i, f.size), 3000),
          }))
          const blob = await collectBytes(encryptBundleStream(entries, { vaultKey, vaultId }))
          const plaintext = header(0, files).length + files.reduce((s, f) => s + f.size, 0)
          expect(blob.length).toBe(encryptedBundleLength(files))
          expect(blob.length).toBe(encryptedLength(plaintext))
        },
      ),
      { numRuns: 25 },
    )
  })

  it('a bundle whose plaintext fills whole chunks ends with an empty final chunk and still opens', async () => {
    const files = [{ path: 'x', size: 0 }]
    const headerLength = header(0, files).length
    const fill = [{ path: 'x', size: 2 * CHUNK_SIZE - headerLength }]
    const content = bytesOf(9, fill[0]!.size)
    const blob = await collectBytes(
      encryptBundleStream([{ identity: fill[0]!, content: () => [content] }], { vaultKey, vaultId }),
    )
    expect(blob.length).toBe(HEADER_SIZE + 2 * SEALED_CHUNK_SIZE + 16)
    expect(blob.length).toBe(encryptedBundleLength(fill))
    const back = await readAll(await openBundle(blob))
    expect(Buffer.from(back.get('x')!).equals(Buffer.from(content))).toBe(true)
  })

  it.each([
    ['fewer', 99, /'docs\/short\.txt' ended after 99 of the 100 bytes announced/],
    ['more', 101, /'docs\/short\.txt' has more than the 100 bytes announced/],
  ])(
    'content with %s bytes than announced fails naming the path, before the final chunk',
    async (_what, actual, message) => {
      const entries: BundleSourceEntry[] = [
        { identity: { path: 'first.txt', size: 5 }, content: () => [new TextEncoder().encode('hello')] },
        { identity: { path: 'docs/short.txt', size: 100 }, content: reusing(bytesOf(4, actual), 40) },
        { identity: { path: 'after.txt', size: 3 }, content: () => [new Uint8Array(3)] },
      ]
      const emitted: Uint8Array[] = []
      let failure: unknown
      try {
        for await (const piece of encryptBundleStream(entries, { vaultKey, vaultId }))
          emitted.push(piece.slice())
      } catch (error) {
        failure = error
      }
      expect(failure).toBeInstanceOf(FileCipherError)
      expect((failure as FileCipherError).reason).toBe('invalid-input')
      expect((failure as FileCipherError).message).toMatch(message)
      // Only the header came out, no final chunk: what was emitted cannot pass for a complete bundle.
      const out = Buffer.concat(emitted)
      expect((out.length - HEADER_SIZE) % SEALED_CHUNK_SIZE).toBe(0)
      await expect(
        collectBytes(
          decryptChunked([out], {
            inputKey: deriveFilesKey(vaultKey),
            context: bundleContext(vaultId, 2),
          }),
        ),
      ).rejects.toMatchObject({ reason: 'truncated' })
    },
  )

  it('refuses up front: no files, more than 65536, a repeated path, a bad path or size', () => {
    const entry = (path: string, size = 1): BundleSourceEntry => ({
      identity: { path, size },
      content: () => {
        throw new Error('must not be opened')
      },
    })
    const refused = (entries: BundleSourceEntry[], message: RegExp) => {
      for (const attempt of [
        () => encryptBundleStream(entries, { vaultKey, vaultId }),
        () => encryptedBundleLength(entries.map((e) => e.identity)),
      ]) {
        let error: unknown
        try {
          attempt()
        } catch (e) {
          error = e
        }
        expect(error).toBeInstanceOf(FileCipherError)
        expect(error).toMatchObject({ reason: 'invalid-input' })
        expect((error as Error).message).toMatch(message)
      }
    }
    refused([], /at least one file/)
    const many = Array.from({ length: BUNDLE_FORMAT_MAX_FILES + 1 }, (_, i) => entry(`f${i}`))
    refused(many, /at most 65536 files, not 65537/)
    refused([entry('a/b.txt'), entry('c.txt'), entry('a/b.txt')], /'a\/b\.txt' is listed twice/)
    refused(
      [entry('ok.txt'), entry('../escape.txt')],
      /'\.\.\/escape\.txt' cannot go into a bundle: .*'\.\.'/,
    )
    refused([entry('ok.txt'), entry('/abs.txt')], /'\/abs\.txt' cannot go into a bundle/)
    refused([entry('neg.txt', -1)], /'neg\.txt' cannot go into a bundle: The file size -1/)
    expect(() => encryptBundleStream([entry('a')], { vaultKey, vaultId, createdAtMs: -5 })).toThrow(/date -5/)
    // The format limit itself is fine (the queue's own limit is far lower).
    const most = Array.from({ length: BUNDLE_FORMAT_MAX_FILES }, (_, i) => ({ path: `f${i}`, size: 0 }))
    expect(encryptedBundleLength(most)).toBeGreaterThan(0)
  })
})

describe('reading a bundle', () => {
  it('skipping a body moves on to the next file; stopping early closes the source', async () => {
    const blob = await collectBytes(encryptBundleStream(entriesFor(sample), { vaultKey, vaultId }))
    const opened = await openBundle(blob)
    const seen: string[] = []
    for await (const entry of opened.entries) {
      seen.push(entry.identity.path)
      if (entry.identity.path === 'photos/über große Katze.jpg') {
        const content = Buffer.from(await collectBytes(entry.body))
        expect(createHash('sha256').update(content).digest('hex')).toBe(
          createHash('sha256').update(sample[2]!.content).digest('hex'),
        )
      }
    }
    expect(seen).toEqual(sample.map((f) => f.path))

    let closed = false
    const source = (async function* () {
      try {
        for (let at = 0; at < blob.length; at += 100) yield blob.subarray(at, at + 100)
      } finally {
        closed = true
      }
    })()
    const early = await openBundle(source)
    const first = await early.entries.next()
    expect(first.value.identity.path).toBe('notes/todo.txt')
    await early.entries.return?.()
    expect(closed).toBe(true)
  })

  it('decryptStream refuses a bundle and says how to open it', async () => {
    const blob = await collectBytes(encryptBundleStream(entriesFor(sample), { vaultKey, vaultId }))
    await expect(collectBytes(decryptStream([blob], { vaultKey, vaultId }))).rejects.toMatchObject({
      reason: 'invalid-input',
      message: expect.stringMatching(/bundle of 5 files.*npm run recover.*openEncryptedFile/),
    })
  })

  it('a bundle is not a file of another vault, and a file blob is not read as a bundle', async () => {
    const blob = await collectBytes(encryptBundleStream(entriesFor(sample), { vaultKey, vaultId }))
    await expect(openEncryptedFile([blob], { vaultKey, vaultId: 'other' })).rejects.toMatchObject({
      reason: 'wrong-vault',
    })
    await expect(openEncryptedFile([blob], { vaultKey: generateVaultKey(), vaultId })).rejects.toMatchObject({
      reason: 'wrong-key',
    })
    const raw = await readBundle(
      decryptChunked([blob], { inputKey: deriveFilesKey(vaultKey), context: bundleContext(vaultId) }),
      2,
      { vaultKey, vaultId },
    )
    expect(raw.files.length).toBe(5)
  })

  // Rows that cut the plaintext short get no content bytes after them.
  const damagedHeader: [string, () => Uint8Array, RegExp][] = [
    ['no files', () => header(1, []), /holds 0 files; a bundle holds 1 to 65536/],
    [
      'more than 65536 files',
      () => {
        const h = Buffer.from(header(1, [{ path: 'a', size: 0 }]))
        h.writeUInt32BE(65537, 8)
        return h
      },
      /holds 65537 files/,
    ],
    [
      'a path that is also the folder of another path',
      () =>
        header(1, [
          { path: 'a', size: 0 },
          { path: 'b', size: 0 },
          { path: 'a/b', size: 0 },
        ]),
      /'a' is listed as a file and also as a folder of 'a\/b'/,
    ],
    [
      'a write time beyond 2^53-1',
      () => header(1, [{ path: 'a', size: 0, writtenAtMs: 2 ** 53 }]),
      /file number 1 of 1 is invalid: its write time, 9007199254740992, is beyond 2\^53-1/,
    ],
    [
      'a repeated path',
      () =>
        header(1, [
          { path: 'a/b', size: 1 },
          { path: 'c', size: 1 },
          { path: 'a/b', size: 1 },
        ]),
      /the path 'a\/b' appears twice/,
    ],
    [
      'a path leaving the folder',
      () =>
        header(1, [
          { path: 'ok', size: 0 },
          { path: 'x/../../etc', size: 0 },
        ]),
      /file number 2 of 2 is invalid: .*'\.\.'/,
    ],
    [
      'a path of length 0',
      () => header(1, [{ path: '', size: 0 }]),
      /file number 1 of 1 is invalid: its path is 0 bytes long/,
    ],
    [
      'records cut short',
      () => header(1, [{ path: 'abc', size: 0 }]).subarray(0, 30),
      /ends inside the record of its file number 1/,
    ],
    ['a header cut short', () => new Uint8Array(7), /only 7 bytes long, too short for its header/],
    [
      'a date beyond 2^53-1',
      () => {
        const h = Buffer.from(header(1, [{ path: 'a', size: 0 }]))
        h.writeBigUInt64BE(2n ** 60n, 0)
        return h
      },
      /date field/,
    ],
  ]

  it.each(damagedHeader)(
    'rejects a bundle with %s as damaged, releasing nothing',
    async (what, make, message) => {
      const plaintext = Buffer.concat([
        make(),
        Buffer.from(what.includes('cut short') ? '' : 'content bytes'),
      ])
      const blob = await sealBundlePlaintext(plaintext)
      const error = await openEncryptedFile([blob], { vaultKey, vaultId }).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(FileCipherError)
      expect(error).toMatchObject({ reason: 'damaged' })
      expect((error as Error).message).toMatch(message)
    },
  )

  it('plaintext shorter than announced: files before are released whole, then the short one fails', async () => {
    const files = [
      { path: 'one', size: 3 },
      { path: 'two', size: 10 },
      { path: 'three', size: 2 },
    ]
    const blob = await sealBundlePlaintext(Buffer.concat([header(5, files), Buffer.from('abc0123456')]))
    const opened = await openBundle(blob)
    const got: string[] = []
    const error = await (async () => {
      for await (const entry of opened.entries) {
        const parts: Buffer[] = []
        for await (const piece of entry.body) parts.push(Buffer.from(piece))
        got.push(`${entry.identity.path}=${Buffer.concat(parts).toString()}`)
      }
    })().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(got).toEqual(['one=abc'])
    expect(error).toMatchObject({
      reason: 'damaged',
      message: expect.stringMatching(/'two' and the files after it/),
    })
  })

  it('after a body failed, the next entry is refused with the same error', async () => {
    const files = [
      { path: 'one', size: 3 },
      { path: 'two', size: 10 },
      { path: 'three', size: 2 },
    ]
    const blob = await sealBundlePlaintext(Buffer.concat([header(5, files), Buffer.from('abc0123')]))
    const opened = await openBundle(blob)
    await opened.entries.next()
    const second = (await opened.entries.next()).value
    const error = await collectBytes(second.body).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toMatchObject({ reason: 'damaged' })
    await expect(opened.entries.next()).rejects.toBe(error)
    await expect(opened.entries.next()).rejects.toBe(error)
  })

  it('plaintext longer than announced: the last file fails and nothing beyond its size is released', async () => {
    const files = [
      { path: 'one', size: 3 },
      { path: 'two', size: 4 },
    ]
    const blob = await sealBundlePlaintext(Buffer.concat([header(5, files), Buffer.from('abcWXYZextra')]))
    const opened = await openBundle(blob)
    const released: Record<string, string> = {}
    let failure: unknown
    try {
      for await (const entry of opened.entries) {
        released[entry.identity.path] = ''
        for await (const piece of entry.body) released[entry.identity.path] += Buffer.from(piece).toString()
      }
    } catch (error) {
      failure = error
    }
    expect(released).toEqual({ one: 'abc', two: '' })
    expect(failure).toMatchObject({
      reason: 'damaged',
      message: expect.stringMatching(/more bytes follow its last file/),
    })
  })

  it('a byte altered in the middle: earlier files come out whole, the damaged one and later ones fail', async () => {
    const files: TestFile[] = Array.from({ length: 6 }, (_, i) => ({
      path: `f${i}.bin`,
      content: bytesOf(i, 30_000),
    }))
    const blob = await collectBytes(encryptBundleStream(entriesFor(files), { vaultKey, vaultId }))
    const damaged = blob.slice()
    // Plaintext offset of f3's middle: header, then 3 files and a half.
    const plainAt =
      header(
        0,
        files.map((f) => ({ path: f.path, size: f.content.length })),
      ).length +
      3.5 * 30_000
    const chunk = Math.floor(plainAt / CHUNK_SIZE)
    damaged[HEADER_SIZE + chunk * SEALED_CHUNK_SIZE + (plainAt % CHUNK_SIZE)]! ^= 0x40
    const opened = await openBundle(damaged)
    const complete: string[] = []
    let failure: unknown
    try {
      for await (const entry of opened.entries) {
        const content = Buffer.from(await collectBytes(entry.body))
        expect(content.equals(Buffer.from(files[entry.index]!.content))).toBe(true)
        complete.push(entry.identity.path)
      }
    } catch (error) {
      failure = error
    }
    // f2 ends in chunk 5, before the damaged chunk 6: it was authenticated whole, so it counts.
    expect(complete).toEqual(['f0.bin', 'f1.bin', 'f2.bin'])
    expect(failure).toMatchObject({ reason: 'damaged' })
  })
})

describe('bundle versions and the embedded manifest', () => {
  const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')
  const manifestOf = (files: TestFile[], sequence = 7): VaultManifest => ({
    sequence,
    writtenAtMs: 1_800_000_000_000,
    entries: files.map((f) => ({
      path: f.path,
      size: f.content.length,
      sha256: sha(f.content),
      writtenAtMs: 1_800_000_000_000,
    })),
  })

  it('a version-1 bundle (no write times, no manifest) still opens', async () => {
    const blob = await encryptBundleV1(sample, { vaultKey, vaultId, createdAtMs: 1_600_000_000_000 })
    const opened = await openBundle(blob)
    expect(opened.version).toBe(1)
    expect(opened.createdAtMs).toBe(1_600_000_000_000)
    expect(opened.manifest).toBeNull()
    expect(opened.files).toEqual(sample.map((f) => ({ path: f.path, size: f.content.length })))
    const back = await readAll(opened)
    for (const f of sample) expect(Buffer.from(back.get(f.path)!).equals(Buffer.from(f.content))).toBe(true)
  })

  it("a version-1 bundle holding 'a' and 'a/b' is read as written (version 1 had no such rule)", async () => {
    const files = [
      { path: 'a', content: utf8('file a') },
      { path: 'a/b', content: utf8('file a/b') },
    ]
    const opened = await openBundle(await encryptBundleV1(files, { vaultKey, vaultId, createdAtMs: 1 }))
    expect([...(await readAll(opened)).keys()]).toEqual(['a', 'a/b'])
  })

  it("refuses to write 'a' and 'a/b' into one bundle", () => {
    const entries = entriesFor([
      { path: 'a/b/c.txt', content: utf8('x') },
      { path: 'a/b', content: utf8('y') },
    ])
    expect(() => encryptBundleStream(entries, { vaultKey, vaultId })).toThrow(
      /'a\/b' is listed as a file and also as a folder of 'a\/b\/c\.txt'/,
    )
  })

  it("keeps each file's own write time and gives the others the bundle's", async () => {
    const entries = entriesFor(sample.slice(0, 2))
    entries[0]!.identity = { ...entries[0]!.identity, writtenAtMs: 1_234 }
    const opened = await openBundle(
      await collectBytes(encryptBundleStream(entries, { vaultKey, vaultId, createdAtMs: 5_000 })),
    )
    expect(opened.files.map((f) => f.writtenAtMs)).toEqual([1_234, 5_000])
  })

  it('embeds the manifest: exact length known from the paths, checked before anything is released', async () => {
    const manifest = manifestOf(sample)
    const blob = await encryptManifest(manifest, { vaultKey, vaultId })
    expect(blob.length).toBe(encryptedManifestLength(sample.map((f) => f.path)))
    const files = sample.map((f) => ({ path: f.path, size: f.content.length }))
    let hashedAt = -1
    const bundle = await collectBytes(
      encryptBundleStream(entriesFor(sample), {
        vaultKey,
        vaultId,
        // Given lazily: asked for once the stream starts, after the caller hashed the files.
        manifest: {
          length: blob.length,
          blob: () => {
            hashedAt = Date.now()
            return blob
          },
        },
      }),
    )
    expect(hashedAt).toBeGreaterThan(0)
    expect(bundle.length).toBe(encryptedBundleLength(files, blob.length))
    expect(bundle.length - encryptedBundleLength(files)).toBe(blob.length)
    const opened = await openBundle(bundle)
    // Entries come back in the manifest's order: ascending paths.
    const byPath = [...manifest.entries].sort((a, b) => (a.path < b.path ? -1 : 1))
    expect(opened.manifest).toEqual({ ...manifest, entries: byPath })
    const back = await readAll(opened)
    for (const f of sample) expect(Buffer.from(back.get(f.path)!).equals(Buffer.from(f.content))).toBe(true)
  })

  it('refuses to embed a manifest of the wrong length, of another vault, or that is not a manifest', async () => {
    const blob = await encryptManifest(manifestOf(sample), { vaultKey, vaultId })
    const attempt = (manifest: Uint8Array | { length: number; blob: () => Uint8Array }) =>
      collectBytes(encryptBundleStream(entriesFor(sample), { vaultKey, vaultId, manifest }))
    await expect(attempt({ length: blob.length + 1, blob: () => blob })).rejects.toMatchObject({
      reason: 'invalid-input',
      message: expect.stringMatching(/not the \d+ bytes announced/),
    })
    const foreign = await encryptManifest(manifestOf(sample), { vaultKey, vaultId: 'another vault' })
    await expect(attempt(foreign)).rejects.toMatchObject({
      reason: 'invalid-input',
      message: expect.stringMatching(/not a manifest of this vault/),
    })
    const file = await collectBytes(
      encryptStream([utf8('x')], { vaultKey, vaultId, identity: { path: 'x', size: 1 } }),
    )
    await expect(attempt(file)).rejects.toMatchObject({ reason: 'invalid-input' })
  })

  it('a bundle whose embedded manifest breaks the rules is rejected whole, releasing nothing', async () => {
    // An authentic manifest blob whose plaintext lists 'a' twice (written by hand).
    const entry = Buffer.alloc(52 + 1)
    entry.writeUInt16BE(1, 50)
    entry.write('a', 52)
    const again = Buffer.alloc(52)
    again.writeUInt16BE(1, 48)
    const head = Buffer.alloc(20)
    head.writeBigUInt64BE(1n, 0)
    head.writeUInt32BE(2, 16)
    const plaintext = Buffer.concat([head, entry, again])
    const bad = await collectBytes(
      encryptChunked([plaintext], { inputKey: deriveFilesKey(vaultKey), context: manifestContext(vaultId) }),
    )
    const files = [{ path: 'x', size: 1 }]
    const blob = await sealBundlePlaintext(
      Buffer.concat([header(1, files, 2, bad.length), bad, Buffer.from('x')]),
    )
    await expect(openEncryptedFile([blob], { vaultKey, vaultId })).rejects.toMatchObject({
      reason: 'damaged',
      message: expect.stringMatching(/embedded manifest does not open: .*manifest rules: .*suffix|shares/),
    })
  })

  // FORMAT.md 3.9, "A file of 0 bytes": complete once every byte before it authenticated, unless it is
  // the last file, which needs the bundle's end.
  it('a 0-byte file exactly where a damaged bundle ends: complete if a file follows, failed if it is the last', async () => {
    const filler = (n: number) => bytesOf(n, n)
    for (const last of [false, true]) {
      const files = [
        { path: 'full.bin', size: 0 },
        { path: 'empty.txt', size: 0 },
      ]
      if (!last) files.push({ path: 'after.bin', size: 10 })
      // full.bin ends exactly at the end of chunk 0; chunk 1 (what follows) is then damaged.
      files[0]!.size = CHUNK_SIZE - header(1, files).length
      const contents = [filler(files[0]!.size), new Uint8Array(0), ...(last ? [] : [filler(10)])]
      const blob = await sealBundlePlaintext(Buffer.concat([header(1, files), ...contents]))
      expect(blob.length).toBe(HEADER_SIZE + SEALED_CHUNK_SIZE + (last ? 0 : 10) + 16)
      const damaged = blob.slice()
      damaged[damaged.length - 1]! ^= 1
      const opened = await openBundle(damaged)
      const complete: string[] = []
      const failure = await (async () => {
        for await (const entry of opened.entries) {
          await collectBytes(entry.body)
          complete.push(entry.identity.path)
        }
      })().then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(failure).toBeInstanceOf(FileCipherError)
      expect(complete).toEqual(last ? ['full.bin'] : ['full.bin', 'empty.txt'])
    }
  })
})

it('an authentic bundle that ends inside its embedded manifest (4 GiB announced) is rejected whole', async () => {
  const blob = await sealBundlePlaintext(
    Buffer.concat([header(1, [{ path: 'a', size: 0 }], 2, 0xffff_ffff), Buffer.alloc(100)]),
  )
  await expect(openEncryptedFile([blob], { vaultKey, vaultId })).rejects.toMatchObject({
    reason: 'damaged',
    message: expect.stringMatching(/ends inside its embedded manifest/),
  })
})
