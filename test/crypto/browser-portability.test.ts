// The vault format runs in a browser: src/vault-format bundled by esbuild for the browser platform
// (a Node built-in anywhere in it fails the build) and run in Debian Chromium, where it decrypts an
// official C2SP chunked-encryption vector, opens a blob and a bundle made in Node with node:crypto,
// and encrypts a blob Node reads back, byte for byte what node:crypto writes.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { inflateSync } from 'node:zlib'
import { build } from 'esbuild'
import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nodeCipher } from '../../src/node-cipher'
import { fromHex, toHex } from '../../src/vault-format/bytes'
import {
  collectBytes,
  encryptBundleStream,
  encryptStream,
  generateVaultKey,
  openEncryptedFile,
} from '../../src/vault-format/index'

/** The library as the page sees it: every export of src/vault-format/index.ts. */
type Library = typeof import('../../src/vault-format/index')

let browser: Browser
let page: Page

beforeAll(async () => {
  const bundled = await build({
    stdin: {
      contents: "export * from './src/vault-format/index'",
      resolveDir: join(import.meta.dirname, '../..'),
      loader: 'ts',
    },
    bundle: true,
    platform: 'browser',
    format: 'iife',
    globalName: 'vaultFormat',
    target: 'chrome120',
    write: false,
    logLevel: 'silent',
  })
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  })
  page = await browser.newPage()
  await page.setContent('<!doctype html><title>vault format</title>')
  await page.addScriptTag({ content: bundled.outputFiles[0]!.text })
})

afterAll(async () => {
  await browser?.close()
})

const sha512 = (bytes: Uint8Array) => createHash('sha512').update(bytes).digest('hex')

describe('the vault format in Chromium', () => {
  it('is a browser, not Node, and has the library', async () => {
    expect(
      await page.evaluate(() => ({
        node: typeof (globalThis as { process?: unknown }).process !== 'undefined',
        buffer: typeof (globalThis as { Buffer?: unknown }).Buffer !== 'undefined',
        library: typeof (globalThis as unknown as { vaultFormat: Library }).vaultFormat.openEncryptedFile,
      })),
    ).toEqual({ node: false, buffer: false, library: 'function' })
  })

  it('decrypts an official C2SP chunked-encryption vector (Cobblestone-256, several chunks)', async () => {
    const file = JSON.parse(
      readFileSync(
        join(import.meta.dirname, '../fixtures/vectors/c2sp_chunked_encryption_aes_256_gcm_test.json'),
        'utf8',
      ),
    ) as {
      testGroups: {
        tests: {
          result: string
          key: string
          ctx: string
          ct: string
          msgLength?: number
          msgSha512?: string
        }[]
      }[]
    }
    const vector = file.testGroups
      .flatMap((g) => g.tests)
      .filter((t) => t.result === 'valid' && (t.msgLength ?? 0) > 2 * 16384)
      .sort((a, b) => a.msgLength! - b.msgLength!)[0]!
    const ct = toHex(new Uint8Array(inflateSync(fromHex(vector.ct))))
    const plainHex = await page.evaluate(
      async ({ key, ctx, ct }) => {
        const lib = (globalThis as unknown as { vaultFormat: Library }).vaultFormat
        const hex = (s: string) => Uint8Array.from(s.match(/../g) ?? [], (b) => Number.parseInt(b, 16))
        const plain = await lib.collectBytes(
          lib.decryptChunked([hex(ct)], { inputKey: hex(key), context: hex(ctx) }),
        )
        return Array.from(plain, (b) => b.toString(16).padStart(2, '0')).join('')
      },
      { key: vector.key, ctx: vector.ctx, ct },
    )
    const plain = fromHex(plainHex)
    expect(plain.length).toBe(vector.msgLength)
    expect(sha512(plain)).toBe(vector.msgSha512)
  })

  it('opens a file blob and a bundle made in Node, and encrypts what node:crypto would', async () => {
    const vaultKey = generateVaultKey()
    const vaultId = 'browser-check'
    const content = Uint8Array.from({ length: 3 * 16384 + 123 }, (_, i) => (i * 7) % 251)
    // A fixed write time (format 3 seals it), so the browser's blob can equal Node's byte for byte.
    const identity = { path: 'Documents/letter.txt', size: content.length, writtenAtMs: 1_700_000_000_000 }
    const saltPrefix = Uint8Array.from({ length: 16 }, (_, i) => i)
    const blob = await collectBytes(
      encryptStream([content], { vaultKey, vaultId, identity, saltPrefix, ...nodeCipher(false) }),
    )
    const bundle = await collectBytes(
      encryptBundleStream(
        [
          { identity: { path: 'a.txt', size: 2 }, content: () => [Uint8Array.of(1, 2)] },
          { identity: { path: 'b/c.txt', size: 3 }, content: () => [Uint8Array.of(3, 4, 5)] },
        ],
        { vaultKey, vaultId, createdAtMs: 1_700_000_000_000, ...nodeCipher(false) },
      ),
    )
    const result = await page.evaluate(
      async ({ key, vaultId, blob, bundle, content, saltPrefix, identity }) => {
        const lib = (globalThis as unknown as { vaultFormat: Library }).vaultFormat
        const hex = (s: string) => Uint8Array.from(s.match(/../g) ?? [], (b) => Number.parseInt(b, 16))
        const toHex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')
        const vaultKey = hex(key)
        const file = await lib.openEncryptedFile([hex(blob)], { vaultKey, vaultId })
        if (file.kind !== 'file') throw new Error('not a file blob')
        const fileContent = toHex(await lib.collectBytes(file.body))
        const opened = await lib.openEncryptedFile([hex(bundle)], { vaultKey, vaultId })
        if (opened.kind !== 'bundle') throw new Error('not a bundle')
        const files: { path: string; content: string }[] = []
        for await (const entry of opened.entries)
          files.push({ path: entry.identity.path, content: toHex(await lib.collectBytes(entry.body)) })
        const again = await lib.collectBytes(
          lib.encryptStream([hex(content)], { vaultKey, vaultId, identity, saltPrefix: hex(saltPrefix) }),
        )
        return {
          identity: file.identity,
          fileContent,
          createdAtMs: opened.createdAtMs,
          files,
          again: toHex(again),
        }
      },
      {
        key: toHex(vaultKey),
        vaultId,
        blob: toHex(blob),
        bundle: toHex(bundle),
        content: toHex(content),
        saltPrefix: toHex(saltPrefix),
        identity,
      },
    )
    expect(result.identity).toEqual(identity)
    expect(result.fileContent).toBe(toHex(content))
    expect(result.createdAtMs).toBe(1_700_000_000_000)
    expect(result.files).toEqual([
      { path: 'a.txt', content: '0102' },
      { path: 'b/c.txt', content: '030405' },
    ])
    // Same salt, same bytes: the browser's pure-JS AES-GCM writes what node:crypto wrote.
    expect(result.again).toBe(toHex(blob))
    const back = await openEncryptedFile([fromHex(result.again)], { vaultKey, vaultId, ...nodeCipher(false) })
    if (back.kind !== 'file') throw new Error('not a file blob')
    expect(toHex(await collectBytes(back.body))).toBe(toHex(content))
  })
})
