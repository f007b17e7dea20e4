// The native AES-256-GCM (src/native-cipher, built by scripts/build-native-cipher.mjs): one context per
// file keeps the expanded key, and each chunk is sealed straight into the caller's buffer. Against
// node:crypto's object, output and tag buffers per chunk, that is about a third of the CPU and no garbage.
// It is used only if it loads and, at load, gives the very bytes node:crypto gives (sealing, opening,
// refusing a forged tag); otherwise nativeAeadBackend() is null and callers keep node:crypto.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import type { AeadBackend } from '../vault-format/batch-api'
import { chunkNonce, TAG_SIZE } from '../vault-format/batch-api'

interface NativeAesGcm {
  context(key: Uint8Array): object
  seal(
    context: object,
    nonce: Uint8Array,
    plaintext: Uint8Array,
    out: Uint8Array,
    offset: number,
    aad?: Uint8Array,
  ): void
  open(
    context: object,
    nonce: Uint8Array,
    sealed: Uint8Array,
    out: Uint8Array,
    offset: number,
    aad?: Uint8Array,
  ): boolean
}

// Sources (src/node-cipher/*.ts) and bundles (out/main, out/cli, out/bench) are both two folders below
// the root; a packaged app finds it the same way, inside app.asar (unpacked: electron-builder.yml).
const MODULE_URL = new URL('../../out/native-cipher/aes_gcm.node', import.meta.url)

/** node:crypto's answer, for the check at load. */
function referenceSeal(key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, aad: Uint8Array): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, nonce)
  if (aad.length > 0) cipher.setAAD(aad)
  return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()])
}

function referenceOpens(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array): boolean {
  const decipher = createDecipheriv('aes-256-gcm', key, nonce)
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_SIZE))
  decipher.update(sealed.subarray(0, sealed.length - TAG_SIZE))
  try {
    decipher.final()
    return true
  } catch {
    return false
  }
}

/** Why the module fails the check, or null when it agrees with node:crypto everywhere it was asked. */
export function disagreement(addon: NativeAesGcm): string | null {
  const key = new Uint8Array(randomBytes(32))
  const context = addon.context(key)
  // Empty, partial-block and whole-chunk inputs, with and without AAD, at an offset into the output.
  for (const [length, aadLength] of [
    [0, 0],
    [1, 13],
    [31, 0],
    [16384, 0],
  ] as const) {
    const nonce = new Uint8Array(randomBytes(12))
    const plaintext = new Uint8Array(randomBytes(length))
    const aad = new Uint8Array(randomBytes(aadLength))
    const out = new Uint8Array(length + TAG_SIZE + 3)
    addon.seal(context, nonce, plaintext, out, 3, aadLength > 0 ? aad : undefined)
    const sealed = out.subarray(3)
    if (!referenceSeal(key, nonce, plaintext, aad).equals(sealed)) return `sealing ${length} bytes`
    const opened = new Uint8Array(length)
    if (!addon.open(context, nonce, sealed, opened, 0, aadLength > 0 ? aad : undefined))
      return `opening ${length} bytes`
    if (!Buffer.from(opened).equals(plaintext)) return `the plaintext of ${length} bytes`
    if (aadLength > 0) continue
    sealed[sealed.length - 1] = (sealed[sealed.length - 1] ?? 0) ^ 1
    if (addon.open(context, nonce, sealed, opened, 0) || referenceOpens(key, nonce, sealed))
      return `a forged tag on ${length} bytes`
    if (opened.some((byte) => byte !== 0)) return `what a forged tag leaves behind (${length} bytes)`
  }
  return null
}

let loaded: { backend: AeadBackend | null; why: string } | undefined

function load(): { backend: AeadBackend | null; why: string } {
  let addon: NativeAesGcm
  try {
    addon = createRequire(import.meta.url)(fileURLToPath(MODULE_URL)) as NativeAesGcm
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why =
      code === 'MODULE_NOT_FOUND'
        ? 'not built (node scripts/build-native-cipher.mjs says why)'
        : `it did not load: ${(error as Error).message}`
    return { backend: null, why }
  }
  return checked(addon)
}

/** The backend over `addon` if it passes the check at load; else null, and why. A throw is a failure too. */
export function checked(addon: NativeAesGcm): { backend: AeadBackend | null; why: string } {
  let wrong: string | null
  try {
    wrong = disagreement(addon)
  } catch (error) {
    return { backend: null, why: `it failed its check at load: ${(error as Error).message}` }
  }
  if (wrong) return { backend: null, why: `it disagreed with node:crypto on ${wrong}` }
  return { backend: backendOf(addon), why: 'loaded, and agrees with node:crypto' }
}

function backendOf(addon: NativeAesGcm): AeadBackend {
  function open(context: object, nonce: Uint8Array, sealed: Uint8Array, aad?: Uint8Array): Uint8Array | null {
    if (sealed.length < TAG_SIZE) return null
    const out = new Uint8Array(sealed.length - TAG_SIZE)
    return addon.open(context, nonce, sealed, out, 0, aad) ? out : null
  }
  return {
    name: 'native',
    diagnosisBudgetBytes: 160 * 1024 * 1024,
    create(key, baseNonce) {
      const context = addon.context(key)
      const nonce = new Uint8Array(baseNonce.length)
      return {
        sealInto: (index, plaintext, out, offset) =>
          addon.seal(context, chunkNonce(baseNonce, index, nonce), plaintext, out, offset),
        open: (index, sealed) => open(context, chunkNonce(baseNonce, index, nonce), sealed),
        // The module zeroes what it wrote when the tag fails (checked at load: disagreement()).
        openInto: (index, sealed, out, offset) =>
          sealed.length >= TAG_SIZE &&
          addon.open(context, chunkNonce(baseNonce, index, nonce), sealed, out, offset),
      }
    },
    seal(key, nonce, plaintext, aad) {
      const out = new Uint8Array(plaintext.length + TAG_SIZE)
      addon.seal(addon.context(key), nonce, plaintext, out, 0, aad)
      return out
    },
    open: (key, nonce, sealed, aad) => open(addon.context(key), nonce, sealed, aad),
    // Every byte of the output is written before it is read: no need for zeroed memory.
    allocate: (length) => Buffer.allocUnsafeSlow(length),
  }
}

/** The native backend, or null when it is not built, does not load or fails the check (see nativeAeadStatus). */
export function nativeAeadBackend(): AeadBackend | null {
  loaded ??= load()
  return loaded.backend
}

/** Whether the native backend is in use, and why (or why not): for benches and diagnostics. */
export function nativeAeadStatus(): { inUse: boolean; why: string } {
  loaded ??= load()
  return { inUse: loaded.backend !== null, why: loaded.why }
}
