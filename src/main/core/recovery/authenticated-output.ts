// Writing recovered plaintext: decrypted into a temp file beside the target, and given its final name
// only after every chunk authenticated, never replacing a file that is already there. Shared by
// recovery from local .vault files and by heirs' recovery from the service.
import { randomBytes } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { link, lstat, mkdir, rename, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { AeadBackendName } from '../crypto/aead-backend'
import { decryptStream } from '../crypto/file-cipher'

export interface DecryptIntoTempOptions {
  input: string
  output: string
  vaultKey: Uint8Array
  vaultId: string
  backend?: AeadBackendName
  /** Ciphertext bytes read so far, for progress. */
  onBytes?: (bytes: number) => void
}

/** Decrypts `input` into a temp file next to `output`; on any failure the temp file is removed and the error rethrown. */
export async function decryptIntoTemp(
  opts: DecryptIntoTempOptions,
): Promise<{ temp: string; written: number }> {
  await mkdir(dirname(opts.output), { recursive: true })
  // Same folder as the target, so the final link is atomic and never crosses file systems.
  const temp = join(
    dirname(opts.output),
    `.${basename(opts.output)}.${randomBytes(6).toString('hex')}.partial`,
  )
  let written = 0
  try {
    const source = createReadStream(opts.input, { highWaterMark: 1 << 20 })
    if (opts.onBytes) source.on('data', (piece) => opts.onBytes?.(piece.length))
    await pipeline(
      source,
      async function* (ciphertext: AsyncIterable<Uint8Array>) {
        for await (const plain of decryptStream(ciphertext, {
          vaultKey: opts.vaultKey,
          vaultId: opts.vaultId,
          backend: opts.backend,
        })) {
          written += plain.length
          yield plain
        }
      },
      createWriteStream(temp, { flags: 'wx' }),
    )
  } catch (error) {
    await unlink(temp).catch(() => {})
    throw error
  }
  return { temp, written }
}

async function present(path: string): Promise<boolean> {
  try {
    await lstat(path)
    return true
  } catch {
    return false
  }
}

/**
 * Gives the checked temp file its final name. Throws an error with code EEXIST when `output` exists
 * (it is left untouched); on any failure the temp file is removed.
 */
export async function publishWithoutOverwrite(temp: string, output: string): Promise<void> {
  try {
    // link() refuses an existing target, unlike rename(): nothing is ever overwritten.
    await link(temp, output)
    await unlink(temp)
    return
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      await unlink(temp).catch(() => {})
      throw error
    }
  }
  // File systems without hard links (FAT, exFAT): check, then rename.
  try {
    if (await present(output))
      throw Object.assign(new Error(`'${output}' already exists`), { code: 'EEXIST' })
    await rename(temp, output)
  } catch (error) {
    await unlink(temp).catch(() => {})
    throw error
  }
}
