// The heir's side of a practice release: with the practice access code from the [PRACTICE] e-mail and
// the guardians' practice kits, rebuild the practice key, download the practice file, decrypt it into
// the chosen folder and tell the owner's service (a proof over its challenge, computed from the
// practice key). Real guardian kits are refused before anything is combined: a practice never
// assembles the vault key. Shared by the app's Recovery screen and the command-line recovery tool.
import { rm, rmdir } from 'node:fs/promises'
import { join } from 'node:path'
import { VaultApiClient, VaultApiError } from '../service-client'
import { checkServiceAddress } from '../service-client/service-address'
import type { RehearsalTicket } from '../shared/api'
import { AppError } from '../shared/app-error'
import {
  combinePracticeWords,
  decodeKitWords,
  FileCipherError,
  identityRecordLength,
  plaintextLength,
  rehearsalProof,
} from '../vault-format'
import { createNewFile, makeConfinedFolders, outputRoot } from './confined-write'
import { DOWNLOADS_FOLDER } from './heir-recovery'
import { writeRecoveredBlob } from './recovery-writer'

export interface PracticeAccess {
  serviceUrl: string
  /** The practice access code (hk_...) from the [PRACTICE] e-mail. */
  accessToken: string
  /** The vault id from the e-mail, when given: the practice kits must name the same vault. */
  vaultId?: string
  timeoutMs?: number
}

export interface PracticeRecoveryOptions extends PracticeAccess {
  /** The guardians' practice kits, as words. */
  kits: string[]
  outDir: string
  /** Decides which practice kits have expired (default: the clock). */
  now?: Date
}

export interface PracticeRecoveryReport {
  vaultId: string
  outDir: string
  /** The practice file as written (absent when it could not be). */
  file?: { name: string; output: string; bytes: number; status: 'recovered' | 'kept' }
  /** Whether the service accepted the proof, with a sentence for the heir. */
  passed: boolean
  message: string
  /** Kits left out (unreadable, expired, another practice), each with why. */
  kitsSetAside: string[]
}

/** Whether any of these kits is a practice kit: then the whole recovery is a practice. */
export function holdsPracticeKit(kits: string[]): boolean {
  return kits.some((words) => {
    try {
      return decodeKitWords(words).kind === 'practice-share'
    } catch {
      return false
    }
  })
}

const practiceError = (code: string, userMessage: string) => new AppError({ code, userMessage })

function clientFor(access: PracticeAccess): VaultApiClient {
  const address = checkServiceAddress(access.serviceUrl)
  if (!address.ok) {
    throw practiceError(
      'INVALID_ADDRESS',
      `${address.message} Copy the vault service address exactly as the practice e-mail gives it.`,
    )
  }
  // Practices exist only on this project's Vault Service, which answers under /api.
  return new VaultApiClient({
    baseUrl: address.url,
    apiKey: access.accessToken,
    prefix: '/api',
    timeoutMs: access.timeoutMs ?? 30_000,
    maxRetries: 2,
  })
}

/** The practice behind an access code; a clear error when the code is not a live practice code. */
async function readTicket(client: VaultApiClient, access: PracticeAccess): Promise<RehearsalTicket> {
  try {
    return await client.getRehearsalTicket()
  } catch (error) {
    if (error instanceof VaultApiError) {
      if (error.status === 401) {
        throw practiceError(
          'ACCESS_REFUSED',
          'The vault service did not accept this practice access code: the practice has ended (it expires by itself, and the owner may have ended it), or the code is mistyped. Copy it again from the [PRACTICE] e-mail, including the "hk_" at its start, or ask the owner to start a new practice.',
        )
      }
      if (error.status === 403 || error.status === 404) {
        throw practiceError(
          'NOT_A_PRACTICE',
          "These are practice kits, but the access code is not a practice access code. Use the code from the [PRACTICE] e-mail with practice kits; on the real day, use the real e-mail's code with the guardians' real kits.",
        )
      }
      if (error.status === 409) throw practiceError('ACCESS_REFUSED', error.userMessage)
      if (error.status === 0) {
        throw practiceError(
          'SERVICE_UNREACHABLE',
          `The vault service at ${access.serviceUrl} could not be reached. Check the internet connection and the address in the e-mail, then try again.`,
        )
      }
    }
    throw error
  }
}

/** Tells the service the practice kits worked: the proof is over its challenge, under the practice key. */
async function reportProof(
  client: VaultApiClient,
  practiceKey: Uint8Array,
  challenge: string,
): Promise<{ passed: boolean; message: string }> {
  try {
    await client.reportRehearsal(rehearsalProof(practiceKey, challenge))
    return {
      passed: true,
      message: "The guardians' practice kits opened the practice file, and the owner has been told.",
    }
  } catch (error) {
    return {
      passed: false,
      message:
        error instanceof VaultApiError && error.status === 400
          ? 'The service says these practice kits rebuilt a different key than this practice: they may be from an earlier practice. Ask the guardians for the practice kits of this practice.'
          : `The practice file was recovered, but the service could not be told (${error instanceof AppError ? error.userMessage : String(error)}). Run the recovery again to report it.`,
    }
  }
}

export async function recoverPracticeFile(opts: PracticeRecoveryOptions): Promise<PracticeRecoveryReport> {
  // Throws at once (ShareInputError) on a real kit among them, or when they are not enough.
  const key = await combinePracticeWords(opts.kits, opts.now ? { now: opts.now } : {})
  const kitsSetAside = key.ignored.map((kit) => kit.reason)
  if (opts.vaultId?.trim() && opts.vaultId.trim() !== key.vaultId) {
    throw practiceError(
      'SHARE_INVALID',
      `These practice kits are for vault ${key.vaultId}, but the e-mail names vault ${opts.vaultId.trim()}. Ask the guardians for the practice kits of this practice.`,
    )
  }
  const client = clientFor(opts)
  const ticket = await readTicket(client, opts)
  if (ticket.vaultId !== key.vaultId) {
    throw practiceError(
      'SHARE_INVALID',
      `This practice access code is for vault ${ticket.vaultId}, but the practice kits are for vault ${key.vaultId}. Use the code and the kits of the same practice.`,
    )
  }
  const report: PracticeRecoveryReport = {
    vaultId: key.vaultId,
    outDir: opts.outDir,
    passed: false,
    message: '',
    kitsSetAside,
  }
  const downloads = join(opts.outDir, DOWNLOADS_FOLDER)
  const part = join(downloads, 'practice-file.part')
  try {
    // Below the output folder without following a link (confined-write.ts), like every recovery write.
    await makeConfinedFolders(await outputRoot(opts.outDir), downloads)
    await rm(part, { force: true })
    const handle = await createNewFile(part)
    try {
      await handle.writeFile(Buffer.from(ticket.sample.content, 'base64'))
    } finally {
      await handle.close()
    }
  } catch (error) {
    throw practiceError(
      'OUTPUT_UNWRITABLE',
      `The folder ${opts.outDir} cannot be used (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Choose a folder you can write to and try again.`,
    )
  }
  try {
    const blob = await writeRecoveredBlob({
      input: part,
      outDir: opts.outDir,
      fallbackPath: 'Practice file',
      vaultKey: key.practiceKey,
      vaultId: key.vaultId,
    })
    const written = blob.kind === 'file' ? blob.file : undefined
    if (!written || (written.status !== 'recovered' && written.status !== 'kept')) {
      report.message =
        'The practice file is not a single file that could be written. Ask the owner to start a new practice.'
      return report
    }
    report.file = {
      name: written.relativePath,
      output: written.output,
      bytes: written.bytes,
      status: written.status,
    }
  } catch (error) {
    if (error instanceof FileCipherError) {
      report.message =
        'These practice kits did not open the practice file: they may be from an earlier practice. Ask the guardians for the practice kits of this practice.'
      return report
    }
    throw error
  } finally {
    await rm(part, { force: true })
    await rmdir(downloads).catch(() => {})
  }
  const outcome = await reportProof(client, key.practiceKey, ticket.challenge)
  report.passed = outcome.passed
  report.message = outcome.message
  return report
}

/**
 * Whether an access code is a live practice code (the service gives it a practice ticket). Asked
 * before real kits are combined, so real kits handed over during a practice are refused unopened.
 */
export async function isPracticeAccessCode(access: PracticeAccess): Promise<boolean> {
  try {
    await clientFor(access).getRehearsalTicket()
    return true
  } catch {
    return false
  }
}

/** Why real kits are refused with a practice code: said before anything is combined. */
export const REAL_KITS_IN_PRACTICE =
  'This access code is for a practice, and these are real guardian kits: a practice never uses them. Give the real kits back to their guardians to keep safe, and ask each guardian for the practice kit from their [PRACTICE] e-mail.'

/** What a practice code opens: the practice file's name and size (reading it counts as its download). */
export async function practiceFileOf(
  access: PracticeAccess,
): Promise<{ vaultId: string; filename: string; plaintextBytes: number }> {
  const ticket = await readTicket(clientFor(access), access)
  // The blob holds the file's identity record (format 3: 18 bytes and its name) before its content.
  const record = identityRecordLength({ path: ticket.sample.filename, size: 0 })
  let plaintextBytes = 0
  try {
    plaintextBytes = Math.max(0, plaintextLength(ticket.sample.sizeBytes) - record)
  } catch {
    plaintextBytes = 0
  }
  return { vaultId: ticket.vaultId, filename: ticket.sample.filename, plaintextBytes }
}
