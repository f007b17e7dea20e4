// The throwaway material of a practice release (rehearsal). A practice must never assemble the vault
// key: so the owner's app makes a fresh practice key, splits it with the vault's preset into practice
// kits (marked as such inside their words, and expiring), and encrypts a practice file under it. The
// heir recovers that file from the practice kits exactly as they would recover the vault on the day;
// the service gets the kits (to mail them to the guardians), the encrypted file and a proof hash, and
// nothing of the vault key or its real kits.
import { Buffer } from 'node:buffer'
import {
  EXTENSION_LIMITS,
  type Guardian,
  type RehearsalRequest,
  SSS_PRESET_SHAPE,
  type SssPreset,
} from '../../../shared/api'
import { AppError } from '../../../shared/app-error'
import {
  checkIdentityPath,
  collectBytes,
  encodePracticeShareWords,
  encryptStream,
  generateVaultKey,
  newRehearsalChallenge,
  rehearsalProof,
  rehearsalProofHash,
  splitPracticeKey,
} from '../../../vault-format'

const DAY_MS = 86_400_000

/** What goes into the practice file: the app's practice letter, or a copy of one of the owner's files. */
export type PracticeSample = { kind: 'letter' } | { kind: 'file'; name: string; content: Uint8Array }

export interface PracticeMaterialInput {
  vaultId: string
  /** The vault's name as the owner sees it (in the practice letter). */
  vaultLabel: string
  preset: SssPreset
  /** The vault's guardians in the service's order; declined ones take no part. */
  guardians: Pick<Guardian, 'id' | 'status'>[]
  heirId: string
  sample: PracticeSample
  now: Date
}

export interface PracticeMaterial {
  request: RehearsalRequest
  /** Kept only by the caller's tests: the app forgets it once the request is sent. */
  practiceKey: Uint8Array
}

/** The practice letter: says what it is, so nobody takes it for a file of the vault. */
export function practiceLetter(vaultLabel: string, now: Date): { name: string; content: Uint8Array } {
  const day = now.toISOString().slice(0, 10)
  const text = `Practice file for ${vaultLabel}, made on ${day}.

This file was made by Vault Desktop for a practice release. It holds nothing of the vault: it is
encrypted under a practice key, which the guardians' practice kits rebuild. If you can read this,
the practice kits worked and you know the steps for the real day.

On the real day you will get an e-mail without [PRACTICE], and the guardians will give you their
real guardian kits.
`
  return { name: `Practice file - ${day}.txt`, content: new TextEncoder().encode(text) }
}

/** A file name the format can record: the owner's base name, or a plain fallback. */
function sampleName(name: string): string {
  const base = (name.split(/[\\/]/).pop() ?? '').normalize('NFC').trim()
  return base && checkIdentityPath(base) === null ? base : 'Practice file'
}

export async function makePracticeMaterial(input: PracticeMaterialInput): Promise<PracticeMaterial> {
  const shape = SSS_PRESET_SHAPE[input.preset]
  // Like the real kits: one per guardian who has not declined, in order, as many as the preset makes.
  const taking = input.guardians.filter((g) => g.status !== 'declined').slice(0, shape.shares)
  if (taking.length < shape.threshold) {
    throw new AppError({
      code: 'PRACTICE_NEEDS_GUARDIANS',
      userMessage: `A practice needs at least ${shape.threshold} guardians who have not declined, one practice kit each; this vault has ${taking.length}. Add guardians first.`,
    })
  }
  const file = input.sample.kind === 'letter' ? practiceLetter(input.vaultLabel, input.now) : input.sample
  if (input.sample.kind === 'file' && file.content.length > EXTENSION_LIMITS.rehearsalOwnFileMaxBytes) {
    throw new AppError({
      code: 'PRACTICE_FILE_TOO_LARGE',
      userMessage: `A practice file can be at most ${EXTENSION_LIMITS.rehearsalOwnFileMaxBytes / 1000} kB; this one is ${Math.ceil(file.content.length / 1000)} kB. Choose a smaller file, or use the practice letter.`,
    })
  }
  const name = sampleName(file.name)
  const practiceKey = generateVaultKey()
  // The kits work through the last day of the practice (the service ends the practice the same day).
  const expiresOn = new Date(input.now.getTime() + EXTENSION_LIMITS.rehearsalDays * DAY_MS)
    .toISOString()
    .slice(0, 10)
  const shares = await splitPracticeKey(practiceKey, input.vaultId, shape, expiresOn)
  const encrypted = await collectBytes(
    encryptStream([file.content], {
      vaultKey: practiceKey,
      vaultId: input.vaultId,
      identity: { path: name, size: file.content.length },
    }),
  )
  const challenge = newRehearsalChallenge()
  return {
    practiceKey,
    request: {
      heirId: input.heirId,
      practiceKits: taking.map((g, i) => ({ guardianId: g.id, words: encodePracticeShareWords(shares[i]!) })),
      sample: {
        filename: name,
        content: Buffer.from(encrypted).toString('base64'),
        ownerFile: input.sample.kind === 'file',
      },
      challenge,
      proofHash: rehearsalProofHash(rehearsalProof(practiceKey, challenge)),
    },
  }
}
