// Recovery in the app: check each typed or scanned share as it is entered, then rebuild the vault
// key from enough shares and decrypt the chosen files into the chosen folder, file by file, with
// progress events. Shares never leave this computer; with an heir access code the encrypted files
// come from the vault service (heir-recovery.ts), otherwise from files on this computer.
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
import { HeirAccessError, listHeirFiles, recoverFromService } from '../heir-recovery'
import type { EventHub, HandlerTable } from './handler-table'
import { checkedPaths } from './upload-handlers'

type RecoveryHandlers = Pick<
  HandlerTable,
  'checkShare' | 'recoverFiles' | 'listHeirFiles' | 'recoverFromService'
>

function heirError(error: unknown): never {
  if (error instanceof HeirAccessError) {
    throw new IpcError({
      code: error.code,
      message: error.message,
      ...(error.status ? { status: error.status } : {}),
    })
  }
  throw error
}

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
          message: `Kit ${share.shareIndex} of ${share.shareCount}, read correctly (vault ${share.fingerprint}, set ${share.splitId}, as printed on the kit).`,
          splitId: share.splitId,
          shareIndex: share.shareIndex,
          threshold: share.threshold,
          shares: share.shareCount,
          vaultFingerprint: share.fingerprint,
          vaultId: share.vaultId,
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

    listHeirFiles: async ({ serviceUrl, accessToken, vaultId }) => {
      try {
        const { vault, files } = await listHeirFiles({
          serviceUrl: serviceUrl.trim(),
          accessToken: accessToken.trim(),
          vaultId: vaultId.trim(),
        })
        return {
          vaultId: vault.id,
          state: vault.state,
          files: files.map((f) => ({
            assetId: f.assetId,
            name: f.name,
            plaintextBytes: f.plaintextBytes,
            contentType: f.contentType,
          })),
          totalBytes: files.reduce((sum, f) => sum + Math.max(0, f.plaintextBytes), 0),
        }
      } catch (error) {
        heirError(error)
      }
    },

    recoverFromService: async ({ serviceUrl, accessToken, vaultId, shares, outputDir }) => {
      let key: { vaultKey: Uint8Array; vaultId: string }
      try {
        key = await combineShares(shares.map((s) => decodeShareWords(s)))
      } catch (error) {
        shareError(error)
      }
      if (vaultId?.trim() && vaultId.trim() !== key.vaultId) {
        throw new IpcError({
          code: 'SHARE_INVALID',
          message: `These guardians' kits are for vault ${key.vaultId}, but the e-mail names vault ${vaultId.trim()}. Ask the guardians of vault ${vaultId.trim()} for their kits.`,
        })
      }
      const [out] = checkedPaths([outputDir])
      const runId = randomUUID()
      const report = await recoverFromService({
        serviceUrl: serviceUrl.trim(),
        accessToken: accessToken.trim(),
        vaultId: key.vaultId,
        vaultKey: key.vaultKey,
        outDir: out!,
        onProgress: (p) =>
          deps.events.emit(eventChannels.recoveryProgress, {
            runId,
            input: p.name,
            doneBytes: p.doneBytes,
            totalBytes: p.totalBytes,
            filesDone: p.fileNumber - 1,
            filesTotal: p.fileCount,
          }),
      })
      return {
        runId,
        outputDir: out!,
        results: report.results.map((r) => ({
          input: r.name,
          ...(r.status === 'recovered' || r.status === 'kept' ? { output: r.output } : {}),
          ok: r.status === 'recovered' || r.status === 'kept',
          message: r.message,
          status: r.status,
        })),
        ...(report.stopped ? { stopped: report.stopped } : {}),
        ...(report.rehearsal ? { rehearsal: report.rehearsal } : {}),
      }
    },
  }
}
