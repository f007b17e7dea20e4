// The native AES-256-GCM (src/native-cipher): the same bytes as node:crypto and noble, clear errors for
// bad arguments (never a crash or a write out of bounds), nothing left behind by a forged tag, and a
// check at load that would catch a module that disagrees. The Wycheproof and C2SP vectors run through it
// in vectors.test.ts. Where it is not built the suite says so; under CI it must be built (.ci/run
// installs libssl-dev).
import { createCipheriv, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { NATIVE_CIPHER_MODULE } from '../../scripts/build-native-cipher.mjs'
import { checked, disagreement, nativeAeadBackend, nativeAeadStatus } from '../../src/node-cipher/aead-native'
import { nodeAeadBackend } from '../../src/node-cipher/aead-node'
import { cipherByName, nodeCipher } from '../../src/node-cipher/cipher-choice'
import { encryptFileInWorker } from '../../src/node-cipher/file-read-worker'
import { collectBytes, decryptStream, generateVaultKey, nobleAeadBackend } from '../../src/vault-format'

const status = nativeAeadStatus()
type Addon = Parameters<typeof disagreement>[0]
const bytes = (n: number) => new Uint8Array(randomBytes(n))

it('is built and in use where CI runs (elsewhere: says why not)', () => {
  if (!status.inUse && !process.env.CI) {
    console.log(`skipped: the native AES-GCM is not in use here: ${status.why}`)
    return
  }
  expect(status).toEqual({ inUse: true, why: 'loaded, and agrees with node:crypto' })
})

describe.runIf(status.inUse)('native AES-256-GCM', () => {
  // This body is collected even where the suite is skipped: load nothing there.
  const native = nativeAeadBackend()!
  const addon = (status.inUse ? createRequire(import.meta.url)(NATIVE_CIPHER_MODULE) : null) as Addon

  it('seals chunks exactly as node:crypto and noble do, and each opens the others', () => {
    const key = bytes(32)
    const baseNonce = bytes(12)
    const sealers = [native, nodeAeadBackend, nobleAeadBackend].map((b) => b.create(key, baseNonce))
    for (const [index, length] of [
      [0, 0],
      [1, 1],
      [2, 15],
      [255, 16],
      [256, 16383],
      [70000, 16384],
    ] as const) {
      const plaintext = bytes(length)
      const outputs = sealers.map((sealer) => {
        const out = new Uint8Array(length + 16 + 5)
        sealer.sealInto(index, plaintext, out, 5)
        return Buffer.from(out.subarray(5))
      })
      expect(outputs[0]!.equals(outputs[1]!)).toBe(true)
      expect(outputs[0]!.equals(outputs[2]!)).toBe(true)
      for (const opener of sealers)
        expect(Buffer.from(opener.open(index, outputs[0]!)!).equals(plaintext)).toBe(true)
    }
  })

  it("opens a chunk straight into the caller's buffer, and a forged one leaves zeros there", () => {
    const key = bytes(32)
    const baseNonce = bytes(12)
    const plaintext = bytes(16384)
    const sealed = new Uint8Array(16384 + 16)
    nodeAeadBackend.create(key, baseNonce).sealInto(9, plaintext, sealed, 0)
    const chunks = native.create(key, baseNonce)
    const out = new Uint8Array(16384 + 7).fill(0x55)
    expect(chunks.openInto!(9, sealed, out, 7)).toBe(true)
    expect(Buffer.from(out.subarray(7)).equals(plaintext)).toBe(true)
    expect(out.subarray(0, 7).every((b) => b === 0x55)).toBe(true)
    // Another index is another nonce: refused, and nothing of the plaintext stays in the buffer.
    expect(chunks.openInto!(10, sealed, out, 7)).toBe(false)
    expect(out.subarray(7).every((b) => b === 0)).toBe(true)
    // Too short to hold a tag, or no room at the offset: refused or an error, never a write beyond.
    expect(chunks.openInto!(9, sealed.subarray(0, 15), out, 0)).toBe(false)
    expect(() => chunks.openInto!(9, sealed, new Uint8Array(16383), 0)).toThrow(/no room/)
  })

  it('one-shot seal and open with additional data agree with node:crypto', () => {
    const key = bytes(32)
    const nonce = bytes(12)
    const plaintext = bytes(1000)
    const aad = bytes(40)
    const sealed = native.seal(key, nonce, plaintext, aad)
    const cipher = createCipheriv('aes-256-gcm', key, nonce).setAAD(aad)
    const expected = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()])
    expect(Buffer.from(sealed).equals(expected)).toBe(true)
    expect(Buffer.from(native.open(key, nonce, sealed, aad)!).equals(plaintext)).toBe(true)
    expect(native.open(key, nonce, sealed, bytes(40))).toBeNull()
    expect(native.open(key, nonce, sealed)).toBeNull()
  })

  it('refuses a forged chunk and leaves zeros where its plaintext would have gone', () => {
    const key = bytes(32)
    const nonce = bytes(12)
    const context = addon.context(key)
    const plaintext = bytes(4096).fill(0xaa)
    const sealed = native.seal(key, nonce, plaintext)
    for (const at of [0, 100, sealed.length - 1]) {
      const forged = sealed.slice()
      forged[at] = (forged[at] ?? 0) ^ 0x01
      const out = new Uint8Array(4096).fill(0x55)
      expect(addon.open(context, nonce, forged, out, 0)).toBe(false)
      expect(out.every((b) => b === 0)).toBe(true)
      expect(native.create(key, nonce).open(0, forged)).toBeNull()
    }
    // The wrong chunk index (so nonce) for an authentic chunk: also refused.
    const chunk = new Uint8Array(16 + 16)
    native.create(key, nonce).sealInto(3, bytes(16), chunk, 0)
    expect(native.create(key, nonce).open(4, chunk)).toBeNull()
  })

  it('answers bad arguments with errors that say what is wrong, and writes nothing out of bounds', () => {
    const context = addon.context(bytes(32))
    const nonce = bytes(12)
    const message = (f: () => unknown) => {
      try {
        f()
      } catch (error) {
        return (error as Error).message
      }
      return 'no error'
    }
    expect(message(() => addon.context(bytes(16)))).toMatch(/key must be a Uint8Array of 32 bytes/)
    expect(message(() => addon.context('k'.repeat(32) as never))).toMatch(/key must be/)
    expect(message(() => addon.seal(context, bytes(8), bytes(4), new Uint8Array(20), 0))).toMatch(
      /nonce must be a Uint8Array of 12 bytes/,
    )
    expect(message(() => addon.seal({}, nonce, bytes(4), new Uint8Array(20), 0))).toMatch(
      /Expected \(context/,
    )
    expect(message(() => addon.seal(context, nonce, bytes(4), new Uint16Array(20) as never, 0))).toMatch(
      /must be Uint8Arrays/,
    )
    expect(message(() => addon.seal(context, nonce, bytes(4), new Uint8Array(20), -1))).toMatch(
      /whole number/,
    )
    expect(message(() => addon.seal(context, nonce, bytes(4), new Uint8Array(20), 0.5))).toMatch(
      /whole number/,
    )
    // Room: 4 + 16 bytes needed. A guard band after the view must stay untouched.
    const backing = new Uint8Array(64).fill(7)
    const view = backing.subarray(0, 20)
    expect(message(() => addon.seal(context, nonce, bytes(4), view, 1))).toMatch(/no room/)
    expect(message(() => addon.seal(context, nonce, bytes(4), view, 21))).toMatch(/no room/)
    expect(message(() => addon.open(context, nonce, bytes(15), view, 0))).toMatch(/at least 16 bytes/)
    expect(message(() => addon.open(context, nonce, bytes(40), view, 0))).toMatch(/no room/)
    expect(backing.subarray(20).every((b) => b === 7)).toBe(true)
    expect(message(() => addon.seal(context, nonce, bytes(4), view, 0, 'aad' as never))).toMatch(
      /additional data must be a Uint8Array/,
    )
    addon.seal(context, nonce, bytes(4), view, 0)
    expect(backing.subarray(20).every((b) => b === 7)).toBe(true)
  })

  it('the check at load catches a module that seals wrongly or opens a forgery', () => {
    expect(disagreement(addon)).toBeNull()
    const flipsABit: Addon = {
      ...addon,
      seal(...args) {
        addon.seal(...args)
        const [, , , out, offset] = args
        out[offset] = (out[offset] ?? 0) ^ 0x80
      },
    }
    expect(disagreement(flipsABit)).toBe('sealing 0 bytes')
    const opensAnything: Addon = { ...addon, open: () => true }
    expect(disagreement(opensAnything)).toMatch(/^a forged tag/)
    // A module that disagrees or throws is not used: node:crypto is, and the status says why.
    expect(checked(flipsABit)).toEqual({
      backend: null,
      why: 'it disagreed with node:crypto on sealing 0 bytes',
    })
    const throws: Addon = {
      ...addon,
      seal: () => {
        throw new Error('OpenSSL failed to seal with AES-256-GCM.')
      },
    }
    expect(checked(throws)).toEqual({
      backend: null,
      why: 'it failed its check at load: OpenSSL failed to seal with AES-256-GCM.',
    })
    expect(checked(addon).backend?.name).toBe('native')
  })

  it('is what nodeCipher() picks, and what the reader thread seals decrypts with node:crypto and noble', async () => {
    expect(nodeCipher(false).backend!.name).toBe('native')
    expect(cipherByName('node').backend!.name).toBe('node')
    const dir = mkdtempSync(join(tmpdir(), 'native-aead-'))
    try {
      const plain = bytes(3 * 1024 * 1024 + 12345)
      const path = join(dir, 'file.bin')
      writeFileSync(path, plain)
      const vaultKey = generateVaultKey()
      const identity = { path: 'file.bin', size: plain.length }
      // A piece is valid until the next one is asked for: keep copies.
      const pieces: Uint8Array[] = []
      for await (const piece of encryptFileInWorker(path, { vaultKey, vaultId: 'v1', identity }))
        pieces.push(piece.slice())
      const blob = Buffer.concat(pieces)
      for (const cipher of [cipherByName('node'), cipherByName('noble')]) {
        const back = await collectBytes(decryptStream([blob], { vaultKey, vaultId: 'v1', ...cipher }))
        expect(Buffer.from(back).equals(plain)).toBe(true)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
