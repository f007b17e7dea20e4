// docs/FORMAT.md's worked example and word-list hash, parsed from the page itself and recomputed with
// the code: if the document and the implementation ever disagree, this fails.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import { describe, expect, it } from 'vitest'
import { cipherByName } from '../../src/node-cipher'
import { fromHex, toHex } from '../../src/vault-format/bytes'
import { chunkNonce, deriveMessageKeys } from '../../src/vault-format/chunked-format'
import { bundleContext, encodeBundleHeader } from '../../src/vault-format/file-bundle'
import { fileSalt } from '../../src/vault-format/file-cipher'
import { manifestContext } from '../../src/vault-format/file-context'
import { encodeIdentity } from '../../src/vault-format/file-identity'
import {
  collectBytes,
  combineShares,
  decodeManifest,
  decodeOwnerKitWords,
  decodeShareWords,
  decryptStream,
  deriveFilesKey,
  encodeManifest,
  encodeOwnerKitWords,
  encryptBundleStream,
  encryptedBundleLength,
  encryptedFileLength,
  encryptedLength,
  encryptedManifestLength,
  encryptManifest,
  encryptStream,
  fileContext,
  keyCheckValue,
  openEncryptedFile,
  openVaultBlob,
  plaintextLength,
  vaultFingerprint,
} from '../../src/vault-format/index'
import { encodeEnvelope } from '../../src/vault-format/share-envelope'
import { saltCheck } from '../../src/vault-format/vault-key'
import { encryptStreamV1 } from './support/legacy-v1'
import { bundleHeaderV1, encryptBlobV2, encryptBundleV1, identityRecordV2 } from './support/legacy-writers'
import { openFileBlob } from './support/open-file'

const page = readFileSync(new URL('../../docs/FORMAT.md', import.meta.url), 'utf8')
const doc = page.slice(page.indexOf('## 6. Worked example'), page.indexOf('## 7. Test vectors'))

function value(label: string, text = doc): string {
  const escaped = label.replace(/[()]/g, '\\$&')
  const match = text.match(new RegExp(`^${escaped} {2,}(.+)$`, 'm'))
  if (!match) throw new Error(`FORMAT.md has no line '${label}'`)
  return match[1]!.trim()
}
const hex = (label: string) => fromHex(value(label))

describe('FORMAT.md', () => {
  it('is version 3 and has its sections', () => {
    expect(page).toMatch(/^# Vault Desktop file and recovery formats \(version 3\)/)
    for (const heading of [
      '### 3.6 Blob kinds and versions',
      '### 3.7 The identity record',
      '### 3.9 Bundles',
      '### 3.10 The vault manifest',
      '### 3.11 Choosing what to recover',
      '### 5.4 Combining kits',
      '## 6. Worked example',
      '## 7. Test vectors',
    ]) {
      expect(page).toContain(heading)
    }
    expect(page).toContain('vectors/vault-desktop-v2.json')
    expect(page).toContain('vectors/vault-desktop-v3.json')
  })

  it("names every field of both vector files in section 7's table", () => {
    const section7 = page.slice(page.indexOf('## 7. Test vectors'), page.indexOf('## 8. Changes'))
    const names = new Set<string>()
    const collect = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(collect)
      else if (value && typeof value === 'object') {
        for (const [key, inner] of Object.entries(value)) {
          names.add(key)
          collect(inner)
        }
      }
    }
    for (const file of ['vault-desktop-v2.json', 'vault-desktop-v3.json']) {
      collect(JSON.parse(readFileSync(new URL(`../../docs/vectors/${file}`, import.meta.url), 'utf8')))
    }
    const missing = [...names].filter((name) => !section7.includes(`\`${name}\``))
    expect(missing).toEqual([])
  })

  it("prints the SHA-256 of the code's word list: each word followed by a line feed", () => {
    const bytes = `${wordlist.join('\n')}\n`
    expect(wordlist).toHaveLength(2048)
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(value('word list sha256', page))
  })
})

describe('FORMAT.md worked example', () => {
  const vaultKey = hex('vault key')
  const vaultId = value('vault id')
  const content = hex('content (hex)')
  const saltPrefix = hex('salt random part')
  const writtenAtMs = Number(value('written at'))
  const identity = { path: value('path'), size: content.length, writtenAtMs }

  it('key derivations', () => {
    expect(content.length).toBe(40)
    const filesKey = deriveFilesKey(vaultKey)
    expect(toHex(filesKey)).toBe(value('files key'))
    expect(toHex(keyCheckValue(vaultKey))).toBe(value('key-check value'))
    expect(vaultFingerprint(vaultKey)).toBe(value('fingerprint'))
    expect(toHex(saltCheck(filesKey, saltPrefix))).toBe(value('salt check'))
    expect(toHex(fileSalt(filesKey, saltPrefix))).toBe(value('salt'))
    expect(new Date(writtenAtMs).toISOString()).toBe('2026-03-01T12:00:00.000Z')
    expect(doc).toContain(`\`0x${writtenAtMs.toString(16).padStart(16, '0')}\``)
    expect(toHex(fileContext(vaultId))).toBe(value('context'))
    expect(toHex(fileContext(vaultId, 3))).toBe(value('context'))
    const keys = deriveMessageKeys(filesKey, hex('salt'), hex('context'))
    expect(toHex(keys.key)).toBe(value('aead key'))
    expect(toHex(keys.baseNonce)).toBe(value('base nonce'))
    expect(toHex(keys.commitment)).toBe(value('commitment'))
    expect(toHex(chunkNonce(keys.baseNonce, 300))).toBe(value('chunk 300 nonce'))
  })

  it('identity record and plaintext', () => {
    expect(toHex(encodeIdentity(identity))).toBe(value('identity record'))
    expect(value('plaintext')).toBe(value('identity record') + value('content (hex)'))
  })

  it('the blob, both ways', async () => {
    const blob = hex('blob')
    expect(blob.length).toBe(153)
    expect(blob.length).toBe(encryptedFileLength(identity))
    expect(plaintextLength(blob.length)).toBe(hex('plaintext').length)
    for (const backend of ['node', 'noble'] as const) {
      const encrypted = await collectBytes(
        encryptStream([content], { vaultKey, vaultId, saltPrefix, ...cipherByName(backend), identity }),
      )
      expect(toHex(encrypted)).toBe(value('blob'))
      const opened = await openFileBlob([blob], { vaultKey, vaultId, ...cipherByName(backend) })
      expect(opened.version).toBe(3)
      expect(opened.identity).toEqual(identity)
      expect(toHex(await collectBytes(opened.body))).toBe(value('content (hex)'))
    }
  })

  it('the same content as a format-2 blob', async () => {
    const filesKey = deriveFilesKey(vaultKey)
    expect(toHex(fileContext(vaultId, 2))).toBe(value('v2 context'))
    const keys = deriveMessageKeys(filesKey, hex('salt'), hex('v2 context'))
    expect(toHex(keys.key)).toBe(value('v2 aead key'))
    expect(toHex(keys.baseNonce)).toBe(value('v2 base nonce'))
    expect(toHex(keys.commitment)).toBe(value('v2 commitment'))
    expect(toHex(identityRecordV2(identity))).toBe(value('v2 identity record'))
    const written = await encryptBlobV2(content, { vaultKey, vaultId, saltPrefix, path: identity.path })
    expect(toHex(written)).toBe(value('v2 blob'))
    expect(written.length).toBe(145)
    const opened = await openFileBlob([hex('v2 blob')], { vaultKey, vaultId })
    expect([opened.version, opened.identity]).toEqual([2, { path: identity.path, size: 40 }])
    expect(toHex(await collectBytes(opened.body))).toBe(value('content (hex)'))
  })

  it('the same content as a format-1 blob', async () => {
    const filesKey = deriveFilesKey(vaultKey)
    expect(toHex(fileContext(vaultId, 1))).toBe(value('v1 context'))
    const keys = deriveMessageKeys(filesKey, hex('salt'), hex('v1 context'))
    expect(toHex(keys.key)).toBe(value('v1 aead key'))
    expect(toHex(keys.baseNonce)).toBe(value('v1 base nonce'))
    expect(toHex(keys.commitment)).toBe(value('v1 commitment'))
    const blob = hex('v1 blob')
    expect(blob.length).toBe(encryptedLength(40))
    const written = await collectBytes(encryptStreamV1([content], { vaultKey, vaultId, saltPrefix }))
    expect(toHex(written)).toBe(value('v1 blob'))
    const opened = await openFileBlob([blob], { vaultKey, vaultId })
    expect([opened.version, opened.identity]).toEqual([1, null])
    expect(toHex(await collectBytes(opened.body))).toBe(value('content (hex)'))
    expect(toHex(await collectBytes(decryptStream([blob], { vaultKey, vaultId })))).toBe(
      value('content (hex)'),
    )
  })

  it('owner kit envelope and words', () => {
    const envelope = encodeEnvelope({ kind: 'owner-key', version: 1, vaultKey, vaultId })
    expect(toHex(envelope)).toBe(value('owner envelope'))
    expect(encodeOwnerKitWords({ vaultKey, vaultId })).toBe(value('owner words'))
    expect(toHex(decodeOwnerKitWords(value('owner words')).vaultKey)).toBe(value('vault key'))
  })

  const bundleFiles = [
    { identity: { path: value('path'), size: 40 }, content },
    { identity: { path: 'letters/empty.txt', size: 0 }, content: new Uint8Array(0) },
    { identity: { path: 'notes/safe code.txt', size: 5 }, content: new TextEncoder().encode('4711\n') },
  ]

  it('the bundle example (version 2), both ways', async () => {
    for (const { identity: f } of bundleFiles) expect(doc).toContain(`\`${f.path}\``)
    const filesKey = deriveFilesKey(vaultKey)
    expect(toHex(bundleContext(vaultId))).toBe(value('bundle context'))
    const keys = deriveMessageKeys(filesKey, hex('salt'), hex('bundle context'))
    expect(toHex(keys.key)).toBe(value('bundle aead key'))
    expect(toHex(keys.baseNonce)).toBe(value('bundle base nonce'))
    expect(toHex(keys.commitment)).toBe(value('bundle commitment'))
    const identities = bundleFiles.map((f) => ({ ...f.identity, writtenAtMs }))
    expect(toHex(encodeBundleHeader(writtenAtMs, identities))).toBe(value('bundle header'))
    expect(value('bundle plaintext')).toBe(
      value('bundle header') + bundleFiles.map((f) => toHex(f.content)).join(''),
    )
    expect(hex('bundle plaintext').length).toBe(174)
    expect(hex('bundle blob').length).toBe(246)
    expect(encryptedBundleLength(identities)).toBe(246)
    for (const backend of ['node', 'noble'] as const) {
      const entries = bundleFiles.map((f) => ({ identity: f.identity, content: () => [f.content] }))
      const blob = await collectBytes(
        encryptBundleStream(entries, {
          vaultKey,
          vaultId,
          saltPrefix,
          createdAtMs: writtenAtMs,
          ...cipherByName(backend),
        }),
      )
      expect(toHex(blob)).toBe(value('bundle blob'))
      const opened = await openEncryptedFile([hex('bundle blob')], {
        vaultKey,
        vaultId,
        ...cipherByName(backend),
      })
      if (opened.kind !== 'bundle') throw new Error('the example is not read as a bundle')
      expect([opened.version, opened.createdAtMs, opened.manifest]).toEqual([2, writtenAtMs, null])
      expect(opened.files).toEqual(identities)
      for await (const entry of opened.entries) {
        expect(toHex(await collectBytes(entry.body))).toBe(toHex(bundleFiles[entry.index]!.content))
      }
    }
  })

  it('the bundle example as version 1', async () => {
    const createdAtMs = Date.UTC(2026, 0, 1)
    expect(doc).toContain(`\`0x${createdAtMs.toString(16).padStart(16, '0')}\``)
    expect(toHex(bundleContext(vaultId, 1))).toBe(value('bundle v1 context'))
    const keys = deriveMessageKeys(deriveFilesKey(vaultKey), hex('salt'), hex('bundle v1 context'))
    expect(toHex(keys.commitment)).toBe(value('bundle v1 commitment'))
    const identities = bundleFiles.map((f) => f.identity)
    expect(toHex(bundleHeaderV1(createdAtMs, identities))).toBe(value('bundle v1 header'))
    const files = bundleFiles.map((f) => ({ path: f.identity.path, content: f.content }))
    expect(toHex(await encryptBundleV1(files, { vaultKey, vaultId, saltPrefix, createdAtMs }))).toBe(
      value('bundle v1 blob'),
    )
    const opened = await openEncryptedFile([hex('bundle v1 blob')], { vaultKey, vaultId })
    if (opened.kind !== 'bundle') throw new Error('not read as a bundle')
    expect([opened.version, opened.createdAtMs, opened.files]).toEqual([1, createdAtMs, identities])
  })

  it('the manifest example, alone and embedded in the bundle', async () => {
    const manifest = {
      sequence: 1,
      writtenAtMs,
      entries: bundleFiles.map((f) => ({
        path: f.identity.path,
        size: f.identity.size,
        sha256: createHash('sha256').update(f.content).digest('hex'),
        writtenAtMs,
      })),
    }
    expect(toHex(manifestContext(vaultId))).toBe(value('manifest context'))
    const keys = deriveMessageKeys(deriveFilesKey(vaultKey), hex('salt'), hex('manifest context'))
    expect(toHex(keys.key)).toBe(value('manifest aead key'))
    expect(toHex(keys.baseNonce)).toBe(value('manifest base nonce'))
    expect(toHex(keys.commitment)).toBe(value('manifest commitment'))
    expect(toHex(encodeManifest(manifest))).toBe(value('manifest plaintext'))
    expect(hex('manifest plaintext').length).toBe(227)
    const blob = await encryptManifest(manifest, { vaultKey, vaultId, saltPrefix })
    expect(toHex(blob)).toBe(value('manifest blob'))
    expect(blob.length).toBe(299)
    expect(encryptedManifestLength(manifest.entries.map((e) => e.path))).toBe(299)
    const sorted = decodeManifest(hex('manifest plaintext'))
    expect(sorted.entries.map((e) => e.path)).toEqual([
      'letters/empty.txt',
      'letters/to my heirs.txt',
      'notes/safe code.txt',
    ])
    expect(await openVaultBlob([hex('manifest blob')], { vaultKey, vaultId })).toEqual({
      kind: 'manifest',
      manifest: sorted,
    })
    const identities = bundleFiles.map((f) => f.identity)
    expect(encryptedBundleLength(identities, 299)).toBe(545)
  })

  it('guardian shares: envelopes, words, and combining them', async () => {
    const one = decodeShareWords(value('share 1 words'))
    const three = decodeShareWords(value('share 3 words'))
    expect(toHex(encodeEnvelope(one))).toBe(value('share 1 envelope'))
    expect(toHex(encodeEnvelope(three))).toBe(value('share 3 envelope'))
    const splitId = doc.match(/split id `([0-9a-f]{8})`/)![1]
    expect([one.splitId, one.threshold, one.shareCount, one.shareIndex, three.shareIndex]).toEqual([
      splitId,
      2,
      3,
      1,
      3,
    ])
    const xs = doc
      .match(/x-coordinates are (\d+) and (\d+)/)!
      .slice(1)
      .map(Number)
    expect([one.share[32], three.share[32]]).toEqual(xs)
    expect(one.fingerprint).toBe(value('fingerprint'))
    const { vaultKey: combined, vaultId: id, used, ignored } = await combineShares([one, three])
    expect(toHex(combined)).toBe(value('vault key'))
    expect(id).toBe(vaultId)
    expect([used, ignored]).toEqual([[0, 1], []])
  })
})
