// Recovery in the app: check each typed or scanned share as it is entered, then rebuild the vault
// key from enough shares and decrypt the chosen files into the chosen folder, file by file, with
// progress events. Shares never leave this computer; with an heir access code the encrypted files
// come from the vault service (heir-recovery.ts), otherwise from files on this computer.
import { randomUUID } from 'node:crypto'
import { stat } from 'node:fs/promises'
import { basename, relative, sep } from 'node:path'
import { fastestBackendName } from '../../../node-cipher/cipher-choice'
import { listHeirFiles, recoverFromService } from '../../../recovery/heir-recovery'
import {
  holdsPracticeKit,
  isPracticeAccessCode,
  practiceFileOf,
  REAL_KITS_IN_PRACTICE,
  recoverPracticeFile,
} from '../../../recovery/practice-recovery'
import { manifestNote, manifestWarns, recoverRun } from '../../../recovery/recover-files'
import { checkKitByLink } from '../../../service-client/kit-checks'
import { AppError } from '../../../shared/app-error'
import { eventChannels } from '../../../shared/ipc/contract'
import type { RecoveryFileResult } from '../../../shared/ipc/vault-types'
import {
  type CombinedShares,
  combineShareWords,
  decodeKitWords,
  decodeShareWords,
  ENCRYPTED_FILE_SUFFIX,
  kitCheckCodeOf,
} from '../../../vault-format'
import { asAppError, type EventHub, type HandlerTable } from './handler-table'
import { checkedPaths } from './upload-handlers'

type RecoveryHandlers = Pick<
  HandlerTable,
  'checkShare' | 'checkKit' | 'recoverFiles' | 'listHeirFiles' | 'recoverFromService'
>

/** Kits that were not needed and did not fit (unreadable, another vault or set): said, not fatal. */
function kitsSetAside(key: CombinedShares): { kitsSetAside?: string[] } {
  return key.ignored.length ? { kitsSetAside: key.ignored.map((kit) => kit.reason) } : {}
}

/** Every chosen path must exist: a typo is said at once, before any key work. */
async function checkInputsExist(paths: string[]): Promise<void> {
  for (const path of paths) {
    if (!(await stat(path).catch(() => undefined))) {
      throw new AppError({
        code: 'INVALID_PATH',
        userMessage: `${path} does not exist or cannot be read. Check the path of the encrypted files.`,
      })
    }
  }
}

/** A result's input as the user chose it: the file's name, or its path inside the chosen folder. */
function displayName(inputs: string[], file: string): string {
  const root = inputs.find((input) => file === input || file.startsWith(input + sep))
  return root && root !== file ? relative(root, file) : basename(file)
}

export function createRecoveryHandlers(deps: { events: EventHub }): RecoveryHandlers {
  return {
    // The words are read here and only the code derived from them is sent, with the link's token.
    checkKit: async ({ text, guardianLink }) => {
      // A kit that cannot be read is a ShareInputError, which dispatch turns into its words (asAppError).
      const kit = decodeShareWords(text)
      const code = kitCheckCodeOf(kit)
      const view = {
        code,
        shareIndex: kit.shareIndex,
        shares: kit.shareCount,
        vaultFingerprint: kit.fingerprint,
      }
      return guardianLink ? { ...view, result: await checkKitByLink(guardianLink, code) } : view
    },

    checkShare: ({ text }) => {
      try {
        const share = decodeKitWords(text)
        if (share.kind === 'owner-key') {
          return {
            ok: false,
            message:
              "These words are the owner's recovery kit (the vault key itself), not a guardian's kit. Keep them safe; they are not entered here.",
          }
        }
        const read = {
          ok: true,
          splitId: share.splitId,
          shareIndex: share.shareIndex,
          threshold: share.threshold,
          shares: share.shareCount,
          vaultFingerprint: share.fingerprint,
          vaultId: share.vaultId,
        }
        if (share.kind === 'practice-share') {
          return {
            ...read,
            message: `Practice kit ${share.shareIndex} of ${share.shareCount}, read correctly (practice for vault ${share.vaultId}, works until ${share.expiresOn}). It opens only the practice file.`,
            practiceUntil: share.expiresOn,
          }
        }
        return {
          ...read,
          message: `Kit ${share.shareIndex} of ${share.shareCount}, read correctly (vault ${share.fingerprint}, set ${share.splitId}, as printed on the kit).`,
        }
      } catch (error) {
        // A kit that does not read is this check's answer, not a failure of the call.
        const failure = asAppError(error)
        if (failure.code === 'SHARE_INVALID') return { ok: false, message: failure.userMessage }
        throw error
      }
    },

    recoverFiles: async ({ shares, inputs, outputDir }) => {
      const key = await combineShareWords(shares)
      try {
        const [out] = checkedPaths([outputDir])
        const roots = checkedPaths(inputs)
        await checkInputsExist(roots)
        const runId = randomUUID()
        // The same recovery as the command line: names from the authenticated files, never an overwrite.
        const run = await recoverRun({
          vaultKey: key.vaultKey,
          vaultId: key.vaultId,
          inputs: roots,
          outDir: out!,
          // The app ships the native AES-GCM where it is built: it opens chunks without a buffer each.
          backend: fastestBackendName(),
          onProgress: (p) =>
            deps.events.emit(eventChannels.recoveryProgress, {
              runId,
              input: displayName(roots, p.input),
              doneBytes: p.allBytesDone,
              totalBytes: p.allBytesTotal,
              filesDone: p.fileNumber - 1,
              filesTotal: p.fileCount,
            }),
        })
        const { results } = run
        if (results.length === 0) {
          throw new AppError({
            code: 'NOTHING_TO_RECOVER',
            userMessage: `No encrypted files found there (they end in ${ENCRYPTED_FILE_SUFFIX}). Choose the files downloaded from the vault, or the folder holding them.`,
          })
        }
        return {
          runId,
          outputDir: out!,
          results: results.map((r): RecoveryFileResult => {
            const ok = r.status === 'recovered' || r.status === 'kept'
            // A listed file with no copy has no encrypted file to name.
            const input = r.input ? displayName(roots, r.input) : ''
            return {
              // A file inside a bundle: the bundle, then the file's own path.
              input: r.entry ? (input ? `${input} › ${r.entry}` : r.entry) : input,
              ...(ok ? { output: r.output } : {}),
              ok,
              // Missing, newer-than-the-list and in-the-way are not recovered: shown as failures, with why.
              status:
                r.status === 'recovered' || r.status === 'kept' || r.status === 'superseded'
                  ? r.status
                  : 'failed',
              message:
                r.status === 'recovered'
                  ? (r.message ?? 'decrypted and verified')
                  : `${r.message ?? r.status}${r.detail ? ` (${r.detail})` : ''}`,
            }
          }),
          manifestNote: manifestNote(run, (input) => displayName(roots, input)),
          manifestWarning: manifestWarns(run),
          ...kitsSetAside(key),
        }
      } finally {
        // The vault key is needed for this run only: not left in memory after it.
        key.vaultKey.fill(0)
      }
    },

    listHeirFiles: async ({ serviceUrl, accessToken, vaultId }) => {
      const access = { serviceUrl: serviceUrl.trim(), accessToken: accessToken.trim() }
      if (await isPracticeAccessCode(access)) {
        const sample = await practiceFileOf(access)
        const { plaintextBytes } = sample
        return {
          vaultId: sample.vaultId,
          state: 'practice',
          practice: true,
          files: [
            {
              assetId: 'practice-file',
              name: sample.filename,
              plaintextBytes,
              contentType: 'application/octet-stream',
            },
          ],
          totalBytes: plaintextBytes,
        }
      }
      const { vault, files: listed } = await listHeirFiles({
        serviceUrl: serviceUrl.trim(),
        accessToken: accessToken.trim(),
        vaultId: vaultId.trim(),
      })
      // The vault's list of its files is no file of the owner's: the heir sees only files.
      const files = listed.filter((f) => !f.listOnly)
      return {
        vaultId: vault.id,
        state: vault.state,
        files: files.map((f) => ({
          assetId: f.assetId,
          name: f.name,
          plaintextBytes: f.plaintextBytes,
          contentType: f.contentType,
          ...(f.fileCount !== undefined ? { fileCount: f.fileCount } : {}),
        })),
        totalBytes: files.reduce((sum, f) => sum + Math.max(0, f.plaintextBytes), 0),
      }
    },

    recoverFromService: async ({ serviceUrl, accessToken, vaultId, shares, outputDir }) => {
      const access = {
        serviceUrl: serviceUrl.trim(),
        accessToken: accessToken.trim(),
        vaultId: vaultId?.trim(),
      }
      if (holdsPracticeKit(shares)) {
        const [out] = checkedPaths([outputDir])
        const practice = await recoverPracticeFile({ ...access, kits: shares, outDir: out! })
        return {
          runId: randomUUID(),
          outputDir: out!,
          results: practice.file
            ? [
                {
                  input: practice.file.name,
                  output: practice.file.output,
                  ok: true,
                  status: practice.file.status,
                  message: 'Practice file recovered and checked.',
                },
              ]
            : [],
          rehearsal: { passed: practice.passed, message: practice.message },
          ...(practice.kitsSetAside.length ? { kitsSetAside: practice.kitsSetAside } : {}),
        }
      }
      // Real kits handed over during a practice are refused before they are combined.
      if (await isPracticeAccessCode(access)) {
        throw new AppError({ code: 'REAL_KITS_IN_PRACTICE', userMessage: REAL_KITS_IN_PRACTICE })
      }
      const key = await combineShareWords(shares)
      try {
        if (vaultId?.trim() && vaultId.trim() !== key.vaultId) {
          throw new AppError({
            code: 'SHARE_INVALID',
            userMessage: `These guardians' kits are for vault ${key.vaultId}, but the e-mail names vault ${vaultId.trim()}. Ask the guardians of vault ${vaultId.trim()} for their kits.`,
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
          backend: fastestBackendName(),
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
            status: r.status === 'newer' || r.status === 'missing' ? 'failed' : r.status,
          })),
          ...(report.stopped
            ? {}
            : { manifestNote: manifestNote(report), manifestWarning: manifestWarns(report) }),
          ...(report.stopped ? { stopped: report.stopped } : {}),
          ...kitsSetAside(key),
        }
      } finally {
        key.vaultKey.fill(0)
      }
    },
  }
}
