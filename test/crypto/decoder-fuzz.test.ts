// Property-based fuzzing (fast-check) of everything that decodes untrusted input: encrypted files of
// both format versions, and the kits' words, QR text and envelopes. Whatever the mutation:
// - only FileCipherError / ShareInputError come out, never a TypeError, RangeError or a hang;
// - a file decoder releases only an authenticated prefix of the true content, ending at a chunk
//   boundary, and a mutated blob never opens "successfully" to other content or another identity;
// - kit decoders never hand back another key than the real one.
// Failures are diagnosed by trial decryption (~100 ms each), which sets the number of runs.
import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { recoveryQrText } from '../../src/main/core/printable/share-qr'
import { cipherByName } from '../../src/node-cipher'
import { SSS_PRESET_SHAPE } from '../../src/shared/api'
import { concatBytes } from '../../src/vault-format/bytes'
import {
  CHUNK_SIZE,
  collectBytes,
  combineShares,
  decodeRecoveryWords,
  decodeShareWords,
  decryptStream,
  encodeOwnerKitWords,
  encodeShareWords,
  encryptStream,
  FileCipherError,
  type FileIdentity,
  type GuardianShare,
  generateVaultKey,
  HEADER_SIZE,
  SEALED_CHUNK_SIZE,
  ShareInputError,
  splitVaultKey,
} from '../../src/vault-format/index'
import { checksumMatches, decodeEnvelope, encodeEnvelope } from '../../src/vault-format/share-envelope'
import { encryptStreamV1 } from './support/legacy-v1'
import { encryptBlobV2 } from './support/legacy-writers'
import { openFileBlob } from './support/open-file'

const vaultKey = generateVaultKey()
const vaultId = '3f2a9c1e-5b7d-4e8f-a1b2-c3d4e5f60718'
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31)
// Printed so a failure can be replayed: FUZZ_SEED=<seed> npx vitest run test/crypto/decoder-fuzz.test.ts
console.info(`decoder fuzz seed ${SEED}`)

interface Original {
  version: 1 | 2 | 3
  identity: FileIdentity | null
  content: Uint8Array
  blob: Uint8Array
  /** Bytes of the plaintext before the content: the identity record (formats 3 and 2) or nothing. */
  recordLength: number
}

const pathArb = fc
  .array(
    fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9 _-]{1,12}$/),
      fc.constantFrom('Übersicht', '写真', 'émoji 😀', 'a.b', '.hidden', 'x y'),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((segments) => segments.join('/').normalize('NFC'))

// Sizes cluster around the chunk boundaries, where off-by-one errors live, and reach ~200 KiB.
const sizeArb = fc.oneof(
  fc.integer({ min: 0, max: 200 * 1024 }),
  fc
    .integer({ min: -40, max: 40 })
    .chain((d) => fc.integer({ min: 0, max: 12 }).map((k) => Math.max(0, k * CHUNK_SIZE + d))),
)

async function makeOriginal(version: 1 | 2 | 3, path: string, size: number): Promise<Original> {
  const content = randomBytes(size)
  if (version === 1) {
    const blob = await collectBytes(encryptStreamV1([content], { vaultKey, vaultId }))
    return { version, identity: null, content, blob, recordLength: 0 }
  }
  if (version === 2) {
    const blob = await encryptBlobV2(content, { vaultKey, vaultId, path })
    return { version, identity: { path, size }, content, blob, recordLength: 10 + Buffer.byteLength(path) }
  }
  const identity = { path, size, writtenAtMs: 1_790_000_000_000 + size }
  const blob = await collectBytes(encryptStream([content], { vaultKey, vaultId, identity }))
  return { version, identity, content, blob, recordLength: 18 + Buffer.byteLength(path) }
}

const sealedChunks = (blob: Uint8Array) =>
  blob.length < HEADER_SIZE ? 0 : Math.floor((blob.length - HEADER_SIZE) / SEALED_CHUNK_SIZE) + 1
const chunkAt = (blob: Uint8Array, i: number) =>
  blob.subarray(HEADER_SIZE + i * SEALED_CHUNK_SIZE, HEADER_SIZE + (i + 1) * SEALED_CHUNK_SIZE)
const withChunks = (blob: Uint8Array, chunks: Uint8Array[]) =>
  concatBytes(blob.subarray(0, HEADER_SIZE), ...chunks)
const chunksOf = (blob: Uint8Array) => Array.from({ length: sealedChunks(blob) }, (_, i) => chunkAt(blob, i))

type Mutation =
  | { kind: 'truncate'; at: number }
  | { kind: 'extend'; extra: Uint8Array }
  | { kind: 'flip'; bits: number[] }
  | { kind: 'swap'; a: number; b: number }
  | { kind: 'duplicate'; from: number; to: number }
  | { kind: 'drop'; at: number }
  | { kind: 'splice'; from: number; to: number }
  | { kind: 'other-header' }
  | { kind: 'cut-and-extend'; at: number; extra: Uint8Array }

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('extend' as const),
    extra: fc.uint8Array({ minLength: 1, maxLength: 20_000 }),
  }),
  fc.record({ kind: fc.constant('flip' as const), bits: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('swap' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate' as const), from: fc.nat(), to: fc.nat() }),
  fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('splice' as const), from: fc.nat(), to: fc.nat() }),
  fc.record({ kind: fc.constant('other-header' as const) }),
  fc.record({
    kind: fc.constant('cut-and-extend' as const),
    at: fc.nat(),
    extra: fc.uint8Array({ minLength: 1, maxLength: 300 }),
  }),
)

/** Applies a mutation; `other` is another blob of the same vault (same key, its own salt). */
function mutate(blob: Uint8Array, m: Mutation, other: Uint8Array): Uint8Array {
  const chunks = chunksOf(blob)
  const n = chunks.length
  switch (m.kind) {
    case 'truncate':
      return blob.slice(0, m.at % blob.length)
    case 'extend':
      return concatBytes(blob, m.extra)
    case 'flip': {
      const out = blob.slice()
      for (const bit of m.bits) out[(bit >> 3) % out.length]! ^= 1 << (bit & 7)
      return out
    }
    case 'swap': {
      const [a, b] = [m.a % n, m.b % n]
      const reordered = chunks.slice()
      ;[reordered[a], reordered[b]] = [chunks[b]!, chunks[a]!]
      return withChunks(blob, reordered)
    }
    case 'duplicate': {
      const copy = chunks.slice()
      copy.splice(m.to % (n + 1), 0, chunks[m.from % n]!)
      return withChunks(blob, copy)
    }
    case 'drop':
      return withChunks(
        blob,
        chunks.filter((_, i) => i !== m.at % n),
      )
    case 'splice': {
      const theirs = chunksOf(other)
      const copy = chunks.slice()
      copy[m.to % n] = theirs[m.from % theirs.length]!
      return withChunks(blob, copy)
    }
    case 'other-header':
      return concatBytes(other.subarray(0, HEADER_SIZE), blob.subarray(HEADER_SIZE))
    case 'cut-and-extend':
      return concatBytes(blob.subarray(0, m.at % blob.length), m.extra)
  }
}

/** Splits bytes into the pieces a stream might deliver. */
function* pieces(bytes: Uint8Array, size: number): Iterable<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size)
}

/** Reads a blob to the end or the first error; anything but a FileCipherError fails the property. */
async function decode(blob: Uint8Array, pieceSize: number, bodyOnly: boolean, backend: 'node' | 'noble') {
  const opts = { vaultKey, vaultId, ...cipherByName(backend, false) }
  const released: Uint8Array[] = []
  let body: AsyncIterableIterator<Uint8Array> | undefined
  try {
    if (bodyOnly) {
      body = decryptStream(pieces(blob, pieceSize), opts)
      for await (const piece of body) released.push(piece)
      return { ok: true, version: 0, identity: undefined, content: Buffer.concat(released) } as const
    }
    const opened = await openFileBlob(pieces(blob, pieceSize), opts)
    body = opened.body
    for await (const piece of body) released.push(piece)
    return {
      ok: true,
      version: opened.version,
      identity: opened.identity,
      content: Buffer.concat(released),
    } as const
  } catch (error) {
    if (!(error instanceof FileCipherError)) throw error
    // Failed for good: asking again gives the same error, never a clean end.
    if (body) await expect(body.next()).rejects.toBe(error)
    return { ok: false, error, released: Buffer.concat(released) } as const
  }
}

function expectSafe(original: Original, blob: Uint8Array, outcome: Awaited<ReturnType<typeof decode>>) {
  const { content, recordLength } = original
  if (outcome.ok) {
    // Success only with exactly the original content (and identity, when asked for).
    expect(Buffer.from(outcome.content).equals(Buffer.from(content))).toBe(true)
    if (outcome.version !== 0) {
      expect(outcome.version).toBe(original.version)
      expect(outcome.identity).toEqual(original.identity)
    }
    return
  }
  const { released, error } = outcome
  expect(error.message.length).toBeGreaterThan(20)
  // An authenticated prefix of the true content, ending where a chunk of the plaintext ends.
  expect(released.length).toBeLessThanOrEqual(content.length)
  expect(released.equals(Buffer.from(content.subarray(0, released.length)))).toBe(true)
  if (released.length > 0) expect((released.length + recordLength) % CHUNK_SIZE).toBe(0)
  // A mutation can leave the bytes as they were (e.g. swapping a chunk with itself): then it must open.
  if (Buffer.from(blob).equals(Buffer.from(original.blob)))
    throw new Error(`unmutated blob failed: ${error.message}`)
}

describe('blob decoder fuzz', () => {
  it('mutated blobs of either version: only FileCipherError, only authenticated prefixes, never other content', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(3, 3, 3, 2, 1) as fc.Arbitrary<1 | 2 | 3>,
        pathArb,
        sizeArb,
        fc.integer({ min: 0, max: 64 * 1024 }),
        mutationArb,
        fc.integer({ min: 1, max: 70_000 }),
        fc.boolean(),
        fc.constantFrom('node', 'node', 'node', 'noble') as fc.Arbitrary<'node' | 'noble'>,
        async (version, path, size, otherSize, mutation, pieceSize, bodyOnly, backend) => {
          const original = await makeOriginal(version, path, size)
          const other = (await makeOriginal(version, path, otherSize)).blob
          const blob = mutate(original.blob, mutation, other)
          expectSafe(original, blob, await decode(blob, pieceSize, bodyOnly, backend))
        },
      ),
      { numRuns: 60, seed: SEED },
    )
  })

  it('random bytes and random headers over random lengths: only FileCipherError', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }),
          fc.integer({ min: 0, max: 70_000 }).map((n) => new Uint8Array(randomBytes(n))),
        ),
        fc.integer({ min: 1, max: 5000 }),
        async (bytes, pieceSize) => {
          const outcome = await decode(bytes, pieceSize, false, 'node')
          // Without the key, nothing opens, and nothing is released.
          expect(outcome.ok).toBe(false)
          if (!outcome.ok) expect(outcome.released.length).toBe(0)
        },
      ),
      { numRuns: 60, seed: SEED },
    )
  })

  it('a blob made for path A never opens as path B, and each blob names its own file', async () => {
    await fc.assert(
      fc.asyncProperty(pathArb, pathArb, fc.uint8Array({ maxLength: 3000 }), async (a, b, content) => {
        fc.pre(a !== b)
        const identity = { path: a, size: content.length, writtenAtMs: 1 }
        const blobA = await collectBytes(encryptStream([content], { vaultKey, vaultId, identity }))
        const blobB = await collectBytes(
          encryptStream([content], { vaultKey, vaultId, identity: { ...identity, path: b } }),
        )
        // Same content, different names: different blobs, and each opens with its own name only.
        const openedA = await openFileBlob([blobA], { vaultKey, vaultId })
        expect(openedA.identity).toEqual(identity)
        await openedA.body.return?.()
        // B's header with A's chunks, or A's header with B's chunks: neither opens at all.
        for (const mixed of [
          concatBytes(blobB.subarray(0, HEADER_SIZE), blobA.subarray(HEADER_SIZE)),
          concatBytes(blobA.subarray(0, HEADER_SIZE), blobB.subarray(HEADER_SIZE)),
        ]) {
          const outcome = await decode(mixed, 1 << 20, false, 'node')
          expect(outcome.ok).toBe(false)
        }
      }),
      { numRuns: 15, seed: SEED },
    )
  })
})

describe('kit decoder fuzz', () => {
  // A few real splits, made once: a UUID vault id and a free-form one.
  const splits = (async () => {
    const keys = [generateVaultKey(), generateVaultKey()]
    return [
      {
        key: keys[0]!,
        id: vaultId,
        shares: await splitVaultKey(keys[0]!, vaultId, SSS_PRESET_SHAPE.enhanced),
      },
      {
        key: keys[1]!,
        id: 'family vault',
        shares: await splitVaultKey(keys[1]!, 'family vault', SSS_PRESET_SHAPE.standard),
      },
    ]
  })()

  /** Decodes, expecting either a ShareInputError or exactly the original envelope back. */
  function decodesSafely(
    text: string,
    original: GuardianShare | null,
    owner: { key: Uint8Array; id: string } | null,
  ) {
    try {
      const envelope = decodeRecoveryWords(text)
      if (original) expect(envelope).toEqual(original)
      if (owner)
        expect(envelope).toEqual({ kind: 'owner-key', version: 1, vaultKey: owner.key, vaultId: owner.id })
      return true
    } catch (error) {
      if (!(error instanceof ShareInputError)) throw error
      expect(error.message.length).toBeGreaterThan(20)
      return false
    }
  }

  const wordMutationArb = fc.oneof(
    fc.record({ kind: fc.constant('cut' as const), keep: fc.nat() }),
    fc.record({ kind: fc.constant('extra' as const), at: fc.nat(), word: fc.nat(2047) }),
    fc.record({ kind: fc.constant('swap' as const), a: fc.nat(), b: fc.nat() }),
    fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), word: fc.nat(2047) }),
    fc.record({
      kind: fc.constant('noise' as const),
      upper: fc.boolean(),
      separator: fc.constantFrom(' ', '\n', ', ', '\t'),
    }),
  )

  it('typed words and QR text, cut, extended, swapped or replaced: only ShareInputError, never another share', async () => {
    const { wordlist } = await import('@scure/bip39/wordlists/english.js')
    const all = await splits
    await fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.boolean(), fc.boolean(), wordMutationArb, (s, k, owner, qr, m) => {
        const split = all[s % all.length]!
        const share = split.shares[k % split.shares.length]!
        const text = owner
          ? encodeOwnerKitWords({ vaultKey: split.key, vaultId: split.id })
          : qr
            ? recoveryQrText(share)
            : encodeShareWords(share)
        const words = text.split(' ')
        let mutated: string[]
        switch (m.kind) {
          case 'cut':
            mutated = words.slice(0, m.keep % words.length)
            break
          case 'extra':
            mutated = words.toSpliced(m.at % (words.length + 1), 0, wordlist[m.word]!)
            break
          case 'swap':
            mutated = words.slice()
            ;[mutated[m.a % words.length], mutated[m.b % words.length]] = [
              words[m.b % words.length]!,
              words[m.a % words.length]!,
            ]
            break
          case 'replace':
            mutated = words.toSpliced(m.at % words.length, 1, wordlist[m.word]!)
            break
          case 'noise':
            mutated = words.map((w) => (m.upper ? w.toUpperCase() : w.toLowerCase()))
            break
        }
        const joined = mutated.join(m.kind === 'noise' ? m.separator : ' ')
        const decoded = decodesSafely(
          joined,
          owner ? null : share,
          owner ? { key: split.key, id: split.id } : null,
        )
        if (m.kind === 'noise') expect(decoded).toBe(true)
      }),
      // A wrong word costs a search for the likely correction (~0.3 s): few runs, many mutations each.
      { numRuns: 25, seed: SEED },
    )
  })

  it('free text of any kind: only ShareInputError', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.stringMatching(/^[a-z ,.\n0-9)]{0,80}$/)),
        (text) => {
          decodesSafely(text, null, null)
        },
      ),
      { numRuns: 300, seed: SEED },
    )
  })

  it('envelope bytes cut, extended or bit-flipped: the checksum or the parser refuses, never a crash', async () => {
    const all = await splits
    await fc.assert(
      fc.property(
        fc.nat(),
        fc.nat(),
        fc.oneof(
          fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
          fc.record({
            kind: fc.constant('extend' as const),
            extra: fc.uint8Array({ minLength: 1, maxLength: 40 }),
          }),
          fc.record({ kind: fc.constant('flip' as const), bit: fc.nat() }),
          fc.record({ kind: fc.constant('random' as const), bytes: fc.uint8Array({ maxLength: 120 }) }),
        ),
        (s, k, m) => {
          const split = all[s % all.length]!
          const envelope = encodeEnvelope(split.shares[k % split.shares.length]!)
          let bytes: Uint8Array
          if (m.kind === 'cut') bytes = envelope.slice(0, m.at % envelope.length)
          else if (m.kind === 'extend') bytes = concatBytes(envelope, m.extra)
          else if (m.kind === 'random') bytes = m.bytes
          else {
            bytes = envelope.slice()
            bytes[(m.bit >> 3) % bytes.length]! ^= 1 << (m.bit & 7)
          }
          // The words path checks the checksum first; the parser must also hold on its own.
          const verified = checksumMatches(bytes)
          if (m.kind === 'flip') expect(verified).toBe(false)
          try {
            decodeEnvelope(bytes)
          } catch (error) {
            if (!(error instanceof ShareInputError)) throw error
          }
        },
      ),
      { numRuns: 2000, seed: SEED },
    )
  })

  it('altered kits with valid checksums, mixed with good ones and kits of other vaults: never a wrong key', async () => {
    const all = await splits
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            split: fc.nat(),
            share: fc.nat(),
            alter: fc.option(fc.record({ at: fc.nat(32), xor: fc.integer({ min: 1, max: 255 }) }), {
              freq: 3,
            }),
            field: fc.constantFrom('share', 'threshold', 'index', 'keyCheck'),
          }),
          { minLength: 0, maxLength: 8 },
        ),
        async (picks) => {
          // An alteration may leave an impossible share (x-coordinate 0): refused as it is read, which
          // is as good as refused when combined. What must never happen is a wrong key.
          let kits: GuardianShare[]
          try {
            kits = picks.map((p) => {
              const split = all[p.split % all.length]!
              const share = split.shares[p.share % split.shares.length]!
              if (!p.alter) return share
              const { at, xor } = p.alter
              // Altered as a forger would: a consistent envelope with a fresh checksum.
              const altered: GuardianShare =
                p.field === 'share'
                  ? { ...share, share: share.share.map((b, i) => (i === at ? b ^ xor : b)) }
                  : p.field === 'threshold'
                    ? { ...share, threshold: Math.min(share.shareCount, Math.max(2, share.threshold ^ 1)) }
                    : p.field === 'index'
                      ? { ...share, shareIndex: (share.shareIndex % share.shareCount) + 1 }
                      : { ...share, keyCheck: share.keyCheck.map((b, i) => (i === at % 4 ? b ^ xor : b)) }
              return decodeShareWords(encodeShareWords(altered))
            })
          } catch (error) {
            if (error instanceof ShareInputError && /x-coordinate 0/.test(error.message)) return
            throw error
          }
          try {
            const result = await combineShares(kits)
            const real = all.find((s) => s.id === result.vaultId)!
            expect(Buffer.from(result.vaultKey).equals(Buffer.from(real.key))).toBe(true)
            expect([...result.used, ...result.ignored.map((i) => i.index)].sort((a, b) => a - b)).toEqual(
              kits.map((_, i) => i),
            )
          } catch (error) {
            if (!(error instanceof ShareInputError)) throw error
          }
        },
      ),
      { numRuns: 150, seed: SEED },
    )
  })
})
