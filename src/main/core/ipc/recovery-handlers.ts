// Recovery in the app: check each typed or scanned share as it is entered, then rebuild the vault
// key from enough shares and decrypt the chosen files into the chosen folder, file by file, with
// progress events. Nothing here talks to a service: shares and files stay on this computer.
import { randomUUID } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises'
import { basename, join, relative, resolve } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { eventChannels } from '../../../shared/ipc/contract'
import { IpcError } from '../../../shared/ipc/contract-kit'
import type { RecoveryFileResult } from '../../../shared/ipc/vault-types'
import {
  combineShares,
  decodeShareWords,
  decryptStream,
  ENCRYPTED_FILE_SUFFIX,
  type GuardianShare,
  ShareInputError,
} from '../crypto'
import type { EventHub, HandlerTable } from './handler-table'
import { checkedPaths } from './upload-handlers'

type RecoveryHandlers = Pick<HandlerTable, 'checkShare' | 'recoverFiles'>

function shareError(error: unknown): never {
  if (error instanceof ShareInputError) throw new IpcError({ code: 'SHARE_INVALID', message: error.message })
  throw error
}

/** Files to decrypt: plain files as given, folders searched for *.vault files. */
async function collectInputs(
  paths: string[],
): Promise<Array<{ path: string; relativePath: string; size: number }>> {
  const found: Array<{ path: string; relativePath: string; size: number }> = []
  for (const root of paths) {
    const info = await stat(root).catch(() => undefined)
    if (!info) {
      throw new IpcError({
        code: 'INVALID_PATH',
        message: `${root} does not exist or cannot be read. Check the path of the encrypted files.`,
      })
    }
    if (info.isFile()) {
      found.push({ path: root, relativePath: basename(root), size: info.size })
      continue
    }
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const full = join(dir, entry.name)
        if (entry.isDirectory()) await walk(full)
        else if (entry.isFile() && entry.name.endsWith(ENCRYPTED_FILE_SUFFIX)) {
          found.push({ path: full, relativePath: relative(root, full), size: (await stat(full)).size })
        }
      }
    }
    await walk(root)
  }
  return found
}

export function createRecoveryHandlers(deps: { events: EventHub }): RecoveryHandlers {
  return {
    checkShare: ({ text }) => {
      try {
        const share = decodeShareWords(text)
        return {
          ok: true,
          message: `Share ${share.shareIndex} of ${share.shareCount} for vault ${share.fingerprint} (set ${share.splitId}); any ${share.threshold} recover the key.`,
          splitId: share.splitId,
          shareIndex: share.shareIndex,
          threshold: share.threshold,
          shares: share.shareCount,
          vaultFingerprint: share.fingerprint,
        }
      } catch (error) {
        if (error instanceof ShareInputError) return { ok: false, message: error.message }
        throw error
      }
    },

    recoverFiles: async ({ shares, inputs, outputDir }) => {
      let parsed: GuardianShare[]
      let key: { vaultKey: Uint8Array; vaultId: string }
      try {
        parsed = shares.map((s) => decodeShareWords(s))
        key = await combineShares(parsed)
      } catch (error) {
        shareError(error)
      }
      const [out] = checkedPaths([outputDir])
      const files = await collectInputs(checkedPaths(inputs))
      if (files.length === 0) {
        throw new IpcError({
          code: 'NOTHING_TO_RECOVER',
          message: `No encrypted files found there (they end in ${ENCRYPTED_FILE_SUFFIX}). Choose the files downloaded from the vault, or the folder holding them.`,
        })
      }
      await mkdir(out!, { recursive: true })
      const runId = randomUUID()
      const totalBytes = files.reduce((sum, f) => sum + f.size, 0)
      let doneBytes = 0
      const results: RecoveryFileResult[] = []
      for (const [index, file] of files.entries()) {
        const target = resolve(out!, file.relativePath.replace(new RegExp(`\\${ENCRYPTED_FILE_SUFFIX}$`), ''))
        const partial = `${target}.partial`
        try {
          await mkdir(resolve(target, '..'), { recursive: true })
          const counter = new Transform({
            transform(chunk: Buffer, _encoding, done) {
              doneBytes += chunk.length
              deps.events.emit(eventChannels.recoveryProgress, {
                runId,
                input: file.relativePath,
                doneBytes,
                totalBytes,
                filesDone: index,
                filesTotal: files.length,
              })
              done(null, chunk)
            },
          })
          const source = createReadStream(file.path).pipe(counter)
          await pipeline(Readable.from(decryptStream(source, key)), createWriteStream(partial))
          // Only a file that decrypted and authenticated completely gets its real name.
          await rename(partial, target)
          results.push({
            input: file.relativePath,
            output: target,
            ok: true,
            message: 'decrypted and verified',
          })
        } catch (error) {
          await rm(partial, { force: true })
          results.push({
            input: file.relativePath,
            ok: false,
            message: error instanceof Error ? error.message : String(error),
          })
        }
      }
      return { runId, outputDir: out!, results }
    },
  }
}
