// The identity record (format 3, with the owner's write time; format 2 without): what the encoder
// refuses, what the decoder rejects even when every chunk authenticates, and that a blob's name and
// date come from the blob (FORMAT.md 3.6-3.8).
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { nobleAeadBackend } from '../../src/vault-format/aead-noble'
import { utf8 } from '../../src/vault-format/bytes'
import { collectBytes, encryptChunked } from '../../src/vault-format/chunked-stream'
import { fileContext } from '../../src/vault-format/file-cipher'
import { MAX_IDENTITY_PATH_BYTES } from '../../src/vault-format/file-identity'
import {
  checkIdentityPath,
  decryptStream,
  deriveFilesKey,
  encryptedFileLength,
  encryptStream,
  FileCipherError,
  type FileIdentity,
  generateVaultKey,
} from '../../src/vault-format/index'
import { encryptStreamV1 } from './support/legacy-v1'
import { encryptBlobV2 } from './support/legacy-writers'
import { openFileBlob } from './support/open-file'

const vaultKey = generateVaultKey()
const vaultId = 'vault-identity'

async function failure(run: () => Promise<unknown>): Promise<FileCipherError> {
  try {
    await run()
  } catch (error) {
    expect(error).toBeInstanceOf(FileCipherError)
    return error as FileCipherError
  }
  throw new Error('expected a FileCipherError')
}

interface ForgedRecord {
  size: bigint | number
  path: Uint8Array | string
  pathLength?: number
  writtenAt?: bigint | number
}

/**
 * A blob only a faulty writer holding the key could make: any record bytes (format 3, or format 2
 * without the write time), any content.
 */
function forged(record: ForgedRecord, body = 0, version: 2 | 3 = 3) {
  const path = typeof record.path === 'string' ? utf8(record.path) : record.path
  const fixed = version === 3 ? 18 : 10
  const head = new Uint8Array(fixed + path.length)
  const view = new DataView(head.buffer)
  view.setBigUint64(0, BigInt(record.size))
  if (version === 3) view.setBigUint64(8, BigInt(record.writtenAt ?? 1_700_000_000_000))
  view.setUint16(fixed - 2, record.pathLength ?? path.length)
  head.set(path, fixed)
  return collectBytes(
    encryptChunked([head, randomBytes(body)], {
      inputKey: deriveFilesKey(vaultKey),
      context: fileContext(vaultId, version),
    }),
  )
}

async function readAll(blob: Uint8Array) {
  const released: Uint8Array[] = []
  try {
    const opened = await openFileBlob([blob], { vaultKey, vaultId })
    for await (const piece of opened.body) released.push(piece)
    return { opened, released: Buffer.concat(released) }
  } catch (error) {
    expect(error).toBeInstanceOf(FileCipherError)
    return { error: error as FileCipherError, released: Buffer.concat(released) }
  }
}

describe('checkIdentityPath', () => {
  it.each([
    'will.pdf',
    'Documents/taxes/2025/return.pdf',
    'Familie/Übersicht – Müller.pdf',
    '写真/旅行 2019.jpg',
    'emoji 😀/a',
    '.hidden/.config',
    'a..b/c...',
    ' leading and trailing spaces ',
    'x'.repeat(MAX_IDENTITY_PATH_BYTES),
  ])('accepts path %#', (path) => {
    expect(checkIdentityPath(path)).toBeNull()
  })

  it.each([
    ['', /empty/],
    ['/etc/passwd', /starts with '\/'/],
    ['a//b', /empty folder name/],
    ['a/', /empty folder name/],
    ['./a', /'\.' folder/],
    ['a/../../b', /'\.\.' folder/],
    ['..', /'\.\.' folder/],
    ['C:\\Users\\will.pdf', /backslash/],
    ['a\u0000b', /control character \(U\+0000\)/],
    ['line\nbreak', /U\+000A/],
    ['del\u007f', /U\+007F/],
    ['c1\u0085', /U\+0085/],
    ['c1\u009f', /U\+009F/],
    ['evil\u202Efdp.exe', /text-direction character \(U\+202E\)/],
    ['a\u2066b', /U\+2066/],
    ['a\u200Fb', /U\+200F/],
    ['a\u061Cb', /U\+061C/],
    ['Mu\u0308ller.txt', /normal form C/],
    ['lone \uD800 surrogate', /broken Unicode/],
    ['x'.repeat(MAX_IDENTITY_PATH_BYTES + 1), /4097 bytes/],
    ['é'.repeat(2049), /4098 bytes/],
  ])('refuses path %# (%s)', (path, reason) => {
    expect(checkIdentityPath(path)).toMatch(reason)
  })
})

describe('writing format 3', () => {
  it('the blob is exactly encryptedFileLength long and opens with its identity and write time', async () => {
    for (const [path, size] of [
      ['a', 0],
      ['letters/to my heirs.txt', 40],
      ['Übersicht.pdf', 16384 - 18 - 14],
      ['big.bin', 70_000],
    ] as const) {
      const plain = randomBytes(size)
      const identity = { path, size, writtenAtMs: 1_780_000_000_000 + size }
      const blob = await collectBytes(encryptStream([plain], { vaultKey, vaultId, identity }))
      expect(blob.length).toBe(encryptedFileLength(identity))
      expect(blob.length).toBe(encryptedFileLength({ path, size }))
      const opened = await openFileBlob([blob], { vaultKey, vaultId })
      expect([opened.version, opened.identity]).toEqual([3, identity])
      expect(Buffer.from(await collectBytes(opened.body)).equals(plain)).toBe(true)
    }
  })

  it('seals the time of writing when no write time is given', async () => {
    const before = Date.now()
    const blob = await collectBytes(
      encryptStream([utf8('x')], { vaultKey, vaultId, identity: { path: 'x', size: 1 } }),
    )
    const opened = await openFileBlob([blob], { vaultKey, vaultId })
    expect(opened.identity!.writtenAtMs).toBeGreaterThanOrEqual(before)
    expect(opened.identity!.writtenAtMs).toBeLessThanOrEqual(Date.now())
  })

  it('refuses a write time the format cannot hold', () => {
    for (const writtenAtMs of [-1, 1.5, 2 ** 53]) {
      expect(() =>
        encryptStream([], { vaultKey, vaultId, identity: { path: 'a', size: 0, writtenAtMs } }),
      ).toThrow(/write time .* not a whole number of milliseconds/)
    }
  })

  // FORMAT.md 1, NFC: writers refuse code points their Unicode does not assign, so that a path's NFC
  // check cannot change with the Unicode version; decryptors do not apply that rule.
  it('refuses a path with an unassigned code point, which a decryptor still accepts', async () => {
    const path = 'x͸y'
    expect(checkIdentityPath(path)).toBeNull()
    expect(() => encryptedFileLength({ path, size: 0 })).toThrow(
      /U\+0378, which is not an assigned Unicode character/,
    )
    const { opened } = await readAll(await forged({ size: 0, path }))
    expect(opened?.identity?.path).toBe(path)
  })

  it('refuses an identity the format cannot hold, before any output', () => {
    const write = (identity: FileIdentity) => () => encryptStream([], { vaultKey, vaultId, identity })
    expect(write({ path: '../escape', size: 0 })).toThrow(/'\.\.' folder.*The file was not encrypted/)
    expect(write({ path: 'a', size: -1 })).toThrow(/not a whole number of bytes/)
    expect(write({ path: 'a', size: 1.5 })).toThrow(FileCipherError)
    expect(write({ path: 'a', size: 2 ** 53 })).toThrow(FileCipherError)
    expect(() => encryptedFileLength({ path: 'a\\b', size: 1 })).toThrow(/backslash/)
    expect(() => encryptedFileLength({ path: 'a', size: 2 ** 52 })).toThrow(/beyond the format's limit/)
  })

  it.each([
    ['more bytes than announced', 41, /more than the 40 bytes announced/],
    ['fewer bytes than announced', 39, /ended after 39 of the 40 bytes/],
  ])('stops on a source with %s, and what it wrote never decrypts', async (_name, actual, message) => {
    const parts: Uint8Array[] = []
    const error = await failure(async () => {
      for await (const part of encryptStream([randomBytes(actual)], {
        vaultKey,
        vaultId,
        identity: { path: 'changing.txt', size: 40 },
      }))
        parts.push(part)
    })
    expect(error.reason).toBe('invalid-input')
    expect(error.message).toMatch(message)
    // No final chunk was sealed: the output is a header and nothing a decryptor accepts.
    const { error: decryptError } = await readAll(Buffer.concat(parts))
    expect(decryptError?.reason).toBe('truncated')
  })

  it('a large file sent in odd pieces round-trips (the record shifts every chunk boundary)', async () => {
    const plain = randomBytes(3 * 16384 + 7)
    const pieces = [plain.subarray(0, 1), plain.subarray(1, 16390), plain.subarray(16390)]
    const identity = { path: 'x/y.bin', size: plain.length }
    const blob = await collectBytes(
      encryptStream(pieces, { vaultKey, vaultId, identity, backend: nobleAeadBackend }),
    )
    const back = await collectBytes(decryptStream([blob], { vaultKey, vaultId }))
    expect(Buffer.from(back).equals(plain)).toBe(true)
  })
})

describe('reading: version and identity', () => {
  it('format-2 blobs open as version 2 with their identity and no write time', async () => {
    const plain = randomBytes(20_000)
    const blob = await encryptBlobV2(plain, { vaultKey, vaultId, path: 'old/letter.pdf' })
    const opened = await openFileBlob([blob], { vaultKey, vaultId })
    expect([opened.version, opened.identity]).toEqual([2, { path: 'old/letter.pdf', size: 20_000 }])
    expect(Buffer.from(await collectBytes(opened.body)).equals(plain)).toBe(true)
  })

  it('format-1 blobs open as version 1 without identity', async () => {
    const plain = randomBytes(20_000)
    const blob = await collectBytes(encryptStreamV1([plain], { vaultKey, vaultId }))
    const opened = await openFileBlob([blob], { vaultKey, vaultId })
    expect([opened.version, opened.identity]).toEqual([1, null])
    expect(Buffer.from(await collectBytes(opened.body)).equals(plain)).toBe(true)
    const empty = await collectBytes(encryptStreamV1([], { vaultKey, vaultId }))
    const openedEmpty = await openFileBlob([empty], { vaultKey, vaultId })
    expect(openedEmpty.version).toBe(1)
    expect((await collectBytes(openedEmpty.body)).length).toBe(0)
  })

  it('wrong vault, wrong key and a damaged header are told apart for every version', async () => {
    for (const blob of [
      await collectBytes(
        encryptStream([utf8('hi')], { vaultKey, vaultId, identity: { path: 'a', size: 2 } }),
      ),
      await encryptBlobV2(utf8('hi'), { vaultKey, vaultId, path: 'a' }),
      await collectBytes(encryptStreamV1([utf8('hi')], { vaultKey, vaultId })),
    ]) {
      const open =
        (key: Uint8Array, id: string, bytes = blob) =>
        () =>
          openFileBlob([bytes], { vaultKey: key, vaultId: id })
      expect((await failure(open(vaultKey, 'other'))).reason).toBe('wrong-vault')
      expect((await failure(open(generateVaultKey(), vaultId))).reason).toBe('wrong-key')
      for (const at of [3, 20, 40, 55]) {
        const damaged = blob.slice()
        damaged[at]! ^= 1
        const error = await failure(open(vaultKey, vaultId, damaged))
        expect([error.reason, error.message]).toEqual([
          'damaged',
          expect.stringContaining(`byte ${at} was altered`),
        ])
      }
    }
  })

  it('a swapped or renamed blob still says which file it is', async () => {
    const a = await collectBytes(
      encryptStream([utf8('AAA')], { vaultKey, vaultId, identity: { path: 'a.txt', size: 3 } }),
    )
    const b = await collectBytes(
      encryptStream([utf8('BB')], { vaultKey, vaultId, identity: { path: 'b.txt', size: 2 } }),
    )
    // A service hands out a's bytes under b's name: the name inside is still a's.
    const served = new Map([
      ['b.txt', a],
      ['a.txt', b],
    ])
    for (const [name, blob] of served) {
      const opened = await openFileBlob([blob], { vaultKey, vaultId })
      expect(opened.identity!.path).not.toBe(name)
    }
  })

  // FORMAT.md 3.2: S matching R with no commitment one byte off means the key is right, and either the
  // vault id is wrong or the commitment was altered in more than one byte; the message says both.
  it('a commitment altered in several bytes, right key and vault id: wrong-vault that names both causes', async () => {
    const blob = await collectBytes(
      encryptStream([utf8('hi')], { vaultKey, vaultId, identity: { path: 'a', size: 2 } }),
    )
    const damaged = blob.slice()
    damaged[30]! ^= 1
    damaged[50]! ^= 1
    const error = await failure(() => openFileBlob([damaged], { vaultKey, vaultId }))
    expect(error.reason).toBe('wrong-vault')
    expect(error.message).toMatch(/different vault than 'vault-identity' or its header check .* was altered/)
    expect(error.message).toMatch(/get another copy/)
  })

  // FORMAT.md 3.5, step 4: a blob that ends right after a full chunk is cut short; the full chunks
  // before it authenticated as non-final chunks and may be released, then the file fails.
  it('a blob cut exactly after a full chunk releases the authenticated full chunks, then fails as truncated', async () => {
    const plain = randomBytes(3 * 16384)
    const identity = { path: 'a', size: plain.length, writtenAtMs: 1 }
    const blob = await collectBytes(encryptStream([plain], { vaultKey, vaultId, identity }))
    const cut = blob.subarray(0, 56 + 2 * 16400)
    const { error, released } = await readAll(cut)
    expect(error?.reason).toBe('truncated')
    // Chunks 0 and 1 authenticated as non-final: their plaintext (minus the 19-byte record) came out.
    expect(released.length).toBe(2 * 16384 - 19)
    expect(released.equals(plain.subarray(0, 2 * 16384 - 19))).toBe(true)
  })

  it.each([
    [
      'a write time beyond 2^53-1',
      { size: 0, path: 'a', writtenAt: 2n ** 53n },
      0,
      /write time, 9007199254740992, is beyond 2\^53-1/,
    ],
    ['a path with ..', { size: 0, path: 'a/../b' }, 0, /'\.\.' folder/],
    ['an absolute path', { size: 0, path: '/etc/passwd' }, 0, /starts with '\/'/],
    ['a bidi override', { size: 0, path: 'x\u202Egpj.exe' }, 0, /U\+202E/],
    ['an NFD path', { size: 0, path: 'Mu\u0308ller' }, 0, /normal form C/],
    ['a path that is not UTF-8', { size: 0, path: Uint8Array.of(0x61, 0xff) }, 0, /not valid UTF-8/],
    [
      'an overlong UTF-8 slash',
      { size: 0, path: Uint8Array.of(0x61, 0xc0, 0xaf, 0x62) },
      0,
      /not valid UTF-8/,
    ],
    ['an empty path', { size: 0, path: '' }, 0, /1 to 4096/],
    ['a path length beyond 4096', { size: 0, path: 'a', pathLength: 4097 }, 0, /4097 bytes long/],
    ['a size beyond 2^53-1', { size: 2n ** 53n, path: 'a' }, 0, /beyond 2\^53-1/],
    [
      'a path longer than the plaintext',
      { size: 0, path: 'abc', pathLength: 300 },
      0,
      /too short for the record/,
    ],
    [
      'fewer content bytes than its size',
      { size: 100, path: 'a' },
      99,
      /holds 99 bytes of content while its record announces 100/,
    ],
    ['more content bytes than its size', { size: 100, path: 'a' }, 101, /more than 100 bytes of content/],
    ['a size of 2^53-1 and no content', { size: 2n ** 53n - 1n, path: 'a' }, 5, /holds 5 bytes/],
  ])('rejects an authentic blob with %s, as damaged', async (name, record, body, message) => {
    for (const version of name.includes('write time') ? [3 as const] : [3 as const, 2 as const]) {
      const { error, released } = await readAll(await forged(record, body, version))
      expect(error?.reason).toBe('damaged')
      expect(error?.message).toMatch(message)
      // A bad record is found in chunk 0, before anything is released. A size that does not match is
      // found at the end: the authenticated content came out before, never more than the size.
      if (body === 0) expect(released.length).toBe(0)
      else expect(released.length).toBeLessThanOrEqual(Math.min(body, Number(record.size)))
    }
  })

  it('a plaintext too short to hold the fixed part of the record', async () => {
    for (const length of [0, 1, 9, 17]) {
      const blob = await collectBytes(
        encryptChunked([randomBytes(length)], {
          inputKey: deriveFilesKey(vaultKey),
          context: fileContext(vaultId),
        }),
      )
      const { error } = await readAll(blob)
      expect(error?.reason).toBe('damaged')
      expect(error?.message).toMatch(/too short for the record/)
    }
  })

  it('content beyond the announced size over several chunks: nothing past the size is released', async () => {
    const { error, released } = await readAll(await forged({ size: 20_000, path: 'a' }, 200_000))
    expect(error?.reason).toBe('damaged')
    expect(released.length).toBeLessThanOrEqual(20_000)
  })
})
