// A guardian's kit check from the command line (FORMAT.md 5.5): the check code is derived from the kit's
// words, QR or file here, and only that code (with the guardian link's token) is sent to confirm it.
// The words never leave this computer. Reading kits for recovery is not touched.
import { readFile } from 'node:fs/promises'
import { checkKitByLink } from '../service-client/kit-checks'
import type { KitCheckResult } from '../shared/api'
import type { GuardianShare } from '../vault-format'
import { decodeShareWords, kitCheckCodeOf, ShareInputError } from '../vault-format'
import { RecoveryInputError, readQrImage } from './recovery-key'

export interface KitCheckSource {
  shareWords?: string[]
  shareFiles?: string[]
  shareQrImages?: string[]
}

export interface KitCheckCode {
  kit: GuardianShare
  code: string
}

/** The check code of the one kit given (words, a text file or a QR image). */
export async function kitCheckCodeFrom(source: KitCheckSource): Promise<KitCheckCode> {
  const given = [
    ...(source.shareWords ?? []).map((words) => ({ label: 'Share words', read: async () => words })),
    ...(source.shareFiles ?? []).map((file) => ({
      label: `Share file '${file}'`,
      read: () =>
        readFile(file, 'utf8').catch((error: Error) => {
          throw new RecoveryInputError(`Cannot read share file '${file}': ${error.message}. Check the path.`)
        }),
    })),
    ...(source.shareQrImages ?? []).map((image) => ({
      label: `QR image '${image}'`,
      read: () => readQrImage(image),
    })),
  ]
  if (given.length !== 1) {
    throw new RecoveryInputError(
      given.length === 0
        ? 'A kit check reads one guardian kit: give its words (--share-words), a text file of them (--share-file) or a photo of its QR code (--share-qr).'
        : `A kit check reads one guardian kit at a time; ${given.length} were given. Check each kit on its own.`,
    )
  }
  const { label, read } = given[0]!
  const text = await read()
  try {
    const kit = decodeShareWords(text)
    return { kit, code: kitCheckCodeOf(kit) }
  } catch (error) {
    if (error instanceof ShareInputError) throw new RecoveryInputError(`${label}: ${error.message}`)
    throw error
  }
}

const day = (iso: string | undefined) =>
  iso
    ? new Date(iso).toLocaleDateString('en-GB', {
        day: 'numeric',
        month: 'long',
        year: 'numeric',
        timeZone: 'UTC',
      })
    : 'an unknown date'

/** What the service's answer means for the guardian, and what to do. */
export function kitCheckOutcomeText(result: KitCheckResult): string {
  switch (result.outcome) {
    case 'confirmed':
      return `Confirmed on ${day(result.confirmedAt)}: the owner's service now knows you still have this kit. Keep it where it was.`
    case 'older-split':
      return `This kit is from an older set: the owner made new kits on ${day(result.newSplitAt)}, and this one no longer fits them. Ask the owner for your new kit, then destroy this one.`
    case 'other-guardian':
      return "This is another guardian's kit of this vault, not the one made for you. Check that you typed your own kit (and that the link is from your own e-mail)."
    case 'typo':
      return 'The service did not read this as a check code. Try again; if it keeps failing, type the code printed on the kit on your guardian page.'
    case 'unknown':
      return "The owner's service knows no kit with this code: this kit may belong to another vault, or the link to another owner's vault."
    case 'not-registered':
      return 'The owner has not registered check codes for your kit yet. Ask them to open the Guardians tab in their app while connected to the service, then check again.'
  }
}

/** Confirms the code with the service named in the guardian's e-mail link. */
export function confirmKitCheck(guardianLink: string, code: string): Promise<KitCheckResult> {
  return checkKitByLink(guardianLink, code)
}
