// The vault manifest (FORMAT.md 3.10): what the writer refuses, that it round-trips as a blob of its
// own under its own context (told from files and bundles by the commitment), that the decoder rejects
// every malformed plaintext whole, and how the newest manifest is chosen.
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { collectBytes, encryptChunked } from '../../src/vault-format/chunked-stream'
import { manifestContext } from '../../src/vault-format/file-context'
import {
  decodeManifest,
  decryptManifest,
  deriveFilesKey,
  encodeManifest,
  encryptBundleStream,
  encryptedManifestLength,
  encryptManifest,
  encryptStream,
  FileCipherError,
  generateVaultKey,
  type ManifestEntry,
  manifestPlaintextLength,
  newestManifest,
  openEncryptedFile,
  openVaultBlob,
  type VaultManifest,
} from '../../src/vault-format/index'

const vaultKey = generateVaultKey()
const vaultId = 'vault-manifest-test'
const sha = (text: string) => createHash('sha256').update(text).digest('hex')

function entry(path: string, size = 1, writtenAtMs = 1_790_000_000_000): ManifestEntry {
  return { path, size, sha256: sha(path), writtenAtMs }
}

const listed: VaultManifest = {
  sequence: 42,
  writtenAtMs: 1_790_000_000_500,
  entries: [
    entry('Photos/2019/b.jpg', 5_000_000),
    entry('will.pdf', 120_000),
    entry('Photos/2019/a.jpg', 4_000_000),
    entry('Übersicht.txt', 0),
    entry('😀 emoji.txt', 3),
    entry('\uE000 private use.txt', 3),
  ],
}

function refusal(run: () => unknown): FileCipherError {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(FileCipherError)
    expect((error as FileCipherError).reason).toBe('invalid-input')
    return error as FileCipherError
  }
  throw new Error('expected a refusal')
}

describe('writing a manifest', () => {
  it('round-trips: entries in ascending order of their UTF-8 bytes, front-coded', () => {
    const plaintext = encodeManifest(listed)
    const back = decodeManifest(plaintext)
    const byBytes = [...listed.entries].sort((a, b) =>
      Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)),
    )
    expect(back).toEqual({ ...listed, entries: byBytes })
    // UTF-8 byte order, not UTF-16 order: U+E000 (ee 80 80) sorts before U+1F600 (f0 9f 98 80).
    // (JavaScript's < would put the surrogate pair D83D DE00 first.)
    expect(back.entries.map((e) => e.path).slice(-2)).toEqual(['\uE000 private use.txt', '😀 emoji.txt'])
    // 'Photos/2019/b.jpg' shares 'Photos/2019/' and 'b' is 1 byte more: front coding saves the rest.
    expect(plaintext.length).toBe(manifestPlaintextLength(listed.entries.map((e) => e.path)))
    expect(encodeManifest({ ...listed, entries: [...listed.entries].reverse() })).toEqual(plaintext)
  })

  it('an empty manifest (the owner removed every file) is valid', () => {
    const empty = { sequence: 1, writtenAtMs: 0, entries: [] }
    expect(encodeManifest(empty).length).toBe(20)
    expect(decodeManifest(encodeManifest(empty))).toEqual(empty)
  })

  it.each([
    ['a sequence of 0', { ...listed, sequence: 0 }, /sequence number 0/],
    ['a sequence beyond 2^53-1', { ...listed, sequence: 2 ** 53 }, /sequence number/],
    ['a write time below 0', { ...listed, writtenAtMs: -1 }, /write time -1/],
    [
      'a path listed twice',
      { ...listed, entries: [entry('a'), entry('b'), entry('a')] },
      /'a' is listed twice/,
    ],
    [
      'a path and its folder',
      { ...listed, entries: [entry('a/b/c'), entry('a/b')] },
      /'a\/b' is listed as a file and also as a folder of 'a\/b\/c'/,
    ],
    ['a path leaving the folder', { ...listed, entries: [entry('../x')] }, /'\.\.' folder/],
    ['an NFD path', { ...listed, entries: [entry('Mu\u0308ller')] }, /normal form C/],
    ['an unassigned code point', { ...listed, entries: [entry('a\u0378')] }, /U\+0378/],
    ['a bad size', { ...listed, entries: [entry('a', -1)] }, /size -1/],
    ['a bad entry write time', { ...listed, entries: [entry('a', 1, 2 ** 53)] }, /write time/],
    [
      'an entry written after the manifest',
      { ...listed, entries: [entry('a', 1, listed.writtenAtMs + 1)] },
      /after the manifest itself/,
    ],
    [
      'an upper-case hash',
      { ...listed, entries: [{ ...entry('a'), sha256: sha('a').toUpperCase() }] },
      /SHA-256/,
    ],
    ['a short hash', { ...listed, entries: [{ ...entry('a'), sha256: 'abcd' }] }, /SHA-256/],
  ])('refuses %s', (_what, manifest, message) => {
    expect(refusal(() => encodeManifest(manifest as VaultManifest)).message).toMatch(message)
  })

  it('refuses more than 1,000,000 files, also when only the length is asked for', () => {
    const paths = Array.from({ length: 1_000_001 }, (_, i) => `f${i}`)
    expect(refusal(() => encryptedManifestLength(paths)).message).toMatch(
      /at most 1000000 files, not 1000001/,
    )
  })
})

describe('a manifest blob', () => {
  it('is exactly encryptedManifestLength bytes and opens as a manifest, not a file', async () => {
    const blob = await encryptManifest(listed, { vaultKey, vaultId })
    expect(blob.length).toBe(encryptedManifestLength(listed.entries.map((e) => e.path)))
    const opened = await openVaultBlob([blob], { vaultKey, vaultId })
    expect(opened.kind).toBe('manifest')
    expect(await decryptManifest([blob], { vaultKey, vaultId })).toEqual(
      decodeManifest(encodeManifest(listed)),
    )
    await expect(openEncryptedFile([blob], { vaultKey, vaultId })).rejects.toMatchObject({
      reason: 'not-a-file',
      message: expect.stringMatching(/the vault's manifest \(its list of 6 files, number 42\)/),
    })
  })

  it('is bound to its vault and key; files and bundles are not manifests', async () => {
    const blob = await encryptManifest(listed, { vaultKey, vaultId })
    await expect(decryptManifest([blob], { vaultKey, vaultId: 'other' })).rejects.toMatchObject({
      reason: 'wrong-vault',
    })
    await expect(decryptManifest([blob], { vaultKey: generateVaultKey(), vaultId })).rejects.toMatchObject({
      reason: 'wrong-key',
    })
    const file = await collectBytes(
      encryptStream([new Uint8Array(1)], { vaultKey, vaultId, identity: { path: 'a', size: 1 } }),
    )
    await expect(decryptManifest([file], { vaultKey, vaultId })).rejects.toMatchObject({
      reason: 'invalid-input',
      message: expect.stringMatching(/a file of the vault, not its manifest/),
    })
    const bundle = await collectBytes(
      encryptBundleStream([{ identity: { path: 'a', size: 0 }, content: () => [] }], { vaultKey, vaultId }),
    )
    await expect(decryptManifest([bundle], { vaultKey, vaultId })).rejects.toMatchObject({
      reason: 'invalid-input',
    })
  })
})

describe('reading a manifest: anything malformed is rejected whole', () => {
  /** A manifest plaintext written by hand from FORMAT.md 3.10. */
  function raw(
    header: { sequence?: bigint; writtenAt?: bigint; count?: number },
    entries: {
      size?: bigint
      writtenAt?: bigint
      shared?: number
      suffix: string | Buffer
      suffixLength?: number
    }[],
  ): Buffer {
    const head = Buffer.alloc(20)
    head.writeBigUInt64BE(header.sequence ?? 1n, 0)
    head.writeBigUInt64BE(header.writtenAt ?? 0n, 8)
    head.writeUInt32BE(header.count ?? entries.length, 16)
    const parts: Buffer[] = [head]
    for (const e of entries) {
      const suffix = typeof e.suffix === 'string' ? Buffer.from(e.suffix) : e.suffix
      const fixed = Buffer.alloc(52)
      fixed.writeBigUInt64BE(e.size ?? 0n, 0)
      fixed.writeBigUInt64BE(e.writtenAt ?? 0n, 8)
      fixed.fill(0xab, 16, 48)
      fixed.writeUInt16BE(e.shared ?? 0, 48)
      fixed.writeUInt16BE(e.suffixLength ?? suffix.length, 50)
      parts.push(fixed, suffix)
    }
    return Buffer.concat(parts)
  }

  it('a hand-written plaintext that follows the rules decodes', () => {
    const manifest = decodeManifest(raw({ sequence: 9n }, [{ suffix: 'a/b' }, { shared: 2, suffix: 'c' }]))
    expect(manifest.entries.map((e) => e.path)).toEqual(['a/b', 'a/c'])
    expect(manifest.entries[0]!.sha256).toBe('ab'.repeat(32))
  })

  it.each([
    ['a header cut short', () => raw({}, []).subarray(0, 19), /too short for its header/],
    ['sequence 0', () => raw({ sequence: 0n }, []), /sequence number 0/],
    ['a sequence beyond 2^53-1', () => raw({ sequence: 2n ** 53n }, []), /sequence number/],
    ['a write time beyond 2^53-1', () => raw({ writtenAt: 2n ** 53n }, []), /write time/],
    ['more than 1,000,000 entries', () => raw({ count: 1_000_001 }, []), /lists 1000001 files/],
    ['an entry cut short', () => raw({ count: 2 }, [{ suffix: 'a' }]), /ends inside entry 2 of 2/],
    ['a suffix cut short', () => raw({}, [{ suffix: 'a', suffixLength: 5 }]), /ends inside entry 1/],
    [
      'bytes after the last entry',
      () => Buffer.concat([raw({}, [{ suffix: 'a' }]), Buffer.of(0)]),
      /1 bytes follow/,
    ],
    ['an empty path', () => raw({}, [{ suffix: '' }]), /a path is 1 to 4096/],
    ['a path over 4096 bytes', () => raw({}, [{ suffix: 'x'.repeat(4097) }]), /a path is 1 to 4096/],
    [
      'the first entry sharing bytes',
      () => raw({}, [{ shared: 1, suffix: 'a' }]),
      /shares 1 bytes with a 0-byte path/,
    ],
    [
      'shared not the common prefix',
      () => raw({}, [{ suffix: 'ab' }, { shared: 0, suffix: 'ac' }]),
      /not their common prefix/,
    ],
    ['paths out of order', () => raw({}, [{ suffix: 'b' }, { suffix: 'a' }]), /not in ascending order/],
    [
      'a path listed twice',
      () => raw({}, [{ suffix: 'a' }, { shared: 0, suffix: 'a' }]),
      /not their common prefix|ascending/,
    ],
    [
      'a path and its folder',
      () => raw({}, [{ suffix: 'a' }, { shared: 1, suffix: '/b' }]),
      /'a' is listed as a file and also as a folder of 'a\/b'/,
    ],
    ['a path that is not UTF-8', () => raw({}, [{ suffix: Buffer.of(0x61, 0xff) }]), /not valid UTF-8/],
    ['a path with ..', () => raw({}, [{ suffix: 'a/../b' }]), /'\.\.' folder/],
    ['a size beyond 2^53-1', () => raw({}, [{ suffix: 'a', size: 2n ** 53n }]), /beyond 2\^53-1/],
    [
      'an entry written after the manifest',
      () => raw({ writtenAt: 5n }, [{ suffix: 'a', writtenAt: 6n }]),
      /write time 6, after the manifest's own \(5\)/,
    ],
  ])('rejects %s', async (_what, make, message) => {
    let error: unknown
    try {
      decodeManifest(make())
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(FileCipherError)
    expect(error).toMatchObject({ reason: 'damaged', message: expect.stringMatching(message) })
    // The same plaintext sealed as a manifest blob: openVaultBlob rejects it and releases nothing.
    const blob = await collectBytes(
      encryptChunked([make()], { inputKey: deriveFilesKey(vaultKey), context: manifestContext(vaultId) }),
    )
    await expect(openVaultBlob([blob], { vaultKey, vaultId })).rejects.toMatchObject({ reason: 'damaged' })
  })
})

describe('newestManifest', () => {
  const at = (sequence: number, writtenAtMs: number, paths: string[], where: string) => ({
    where,
    manifest: { sequence, writtenAtMs, entries: paths.map((p) => entry(p, 1, 0)) },
  })

  it('takes the highest sequence number whatever the order, and sorts the rest', () => {
    const old = at(3, 3_000, ['a'], 'old')
    const newest = at(5, 1_000, ['a', 'b'], 'newest')
    const copy = at(5, 1_000, ['a', 'b'], 'embedded copy')
    const middle = at(4, 9_000, ['a'], 'middle')
    for (const found of [
      [old, newest, copy, middle],
      [middle, copy, old, newest],
    ]) {
      const choice = newestManifest(found)
      expect([newestManifest(found).chosen?.manifest.sequence, choice.rivals]).toEqual([5, []])
      expect(choice.older.map((m) => m.where).sort()).toEqual(['middle', 'old'])
      expect(choice.copies.length + 1).toBe(2)
    }
  })

  it('two different manifests with one sequence number: the later write time, the other named a rival', () => {
    const a = at(7, 1_000, ['a'], 'a')
    const b = at(7, 2_000, ['b'], 'b')
    for (const found of [
      [a, b],
      [b, a],
    ]) {
      const choice = newestManifest(found)
      expect(choice.chosen?.where).toBe('b')
      expect(choice.rivals.map((m) => m.where)).toEqual(['a'])
    }
    // Same number and time, different lists: the first given, the other a rival.
    const c = at(7, 2_000, ['c'], 'c')
    expect(newestManifest([c, b]).chosen?.where).toBe('c')
    expect(newestManifest([c, b]).rivals.map((m) => m.where)).toEqual(['b'])
  })

  it('no manifest found', () => {
    expect(newestManifest([])).toEqual({ chosen: null, copies: [], rivals: [], older: [] })
  })
})
