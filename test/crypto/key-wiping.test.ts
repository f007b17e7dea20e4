// Derived keys are zeroed once a stream no longer needs them (issue 32): the message key and base
// nonce of every stream, the files key a file or bundle stream derives for itself. A buffer that still
// holds its bytes after the stream ended is a key left in memory for the next heap dump.
import { describe, expect, it } from 'vitest'
import {
  type AeadBackend,
  collectBytes,
  encryptChunked,
  encryptStream,
  generateVaultKey,
  nobleAeadBackend,
  openVaultBlob,
} from '../../src/vault-format'

/** The library's default AES-GCM, keeping every key and base nonce it was handed. */
function recordingBackend(): { backend: AeadBackend; seen: { key: Uint8Array; baseNonce: Uint8Array }[] } {
  const seen: { key: Uint8Array; baseNonce: Uint8Array }[] = []
  const backend: AeadBackend = {
    ...nobleAeadBackend,
    create(key, baseNonce) {
      seen.push({ key, baseNonce })
      return nobleAeadBackend.create(key, baseNonce)
    },
  }
  return { backend, seen }
}

const zeroed = (bytes: Uint8Array) => bytes.length > 0 && bytes.every((b) => b === 0)

describe('key wiping', () => {
  const vaultKey = generateVaultKey()
  const content = new TextEncoder().encode('what the heirs will read')
  const identity = { path: 'letter.txt', size: content.length }

  it('a file stream zeroes its message key and base nonce once it ended, and the blob still opens', async () => {
    const { backend, seen } = recordingBackend()
    const blob = await collectBytes(encryptStream([content], { vaultKey, vaultId: 'v1', identity, backend }))
    expect(seen).toHaveLength(1)
    expect(zeroed(seen[0]!.key)).toBe(true)
    expect(zeroed(seen[0]!.baseNonce)).toBe(true)

    const opening = recordingBackend()
    const opened = await openVaultBlob([blob], { vaultKey, vaultId: 'v1', backend: opening.backend })
    if (opened.kind !== 'file') throw new Error(`expected a file, got ${opened.kind}`)
    expect(new TextDecoder().decode(await collectBytes(opened.body))).toBe('what the heirs will read')
    expect(opening.seen.length).toBeGreaterThan(0)
    expect(opening.seen.every(({ key, baseNonce }) => zeroed(key) && zeroed(baseNonce))).toBe(true)
  })

  it('a stream given wipeInputKey zeroes that key once its message keys are derived; others are left alone', async () => {
    const inputKey = generateVaultKey()
    const kept = generateVaultKey()
    const context = new Uint8Array([1, 2, 3])
    await collectBytes(encryptChunked([content], { inputKey, context, wipeInputKey: true }))
    await collectBytes(encryptChunked([content], { inputKey: kept, context }))
    expect(zeroed(inputKey)).toBe(true)
    expect(zeroed(kept)).toBe(false)
  })

  it("the vault key the caller passes is the caller's: a stream never zeroes it", async () => {
    const mine = generateVaultKey()
    const copy = mine.slice()
    await collectBytes(encryptStream([content], { vaultKey: mine, vaultId: 'v1', identity }))
    expect(mine).toEqual(copy)
  })
})
