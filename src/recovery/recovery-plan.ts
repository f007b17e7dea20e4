// The recovery tool's survey of an encrypted file on disk; which copy of each file a run writes is
// vault-format/recovery-plan.ts's (docs/FORMAT.md 3.11), shared with the heir's recovery page.
import { createReadStream } from 'node:fs'
import { type AeadBackendName, cipherByName } from '../node-cipher/cipher-choice'
import { openVaultBlob, type SurveyedBlob, surveyOpened } from '../vault-format'

export {
  type CopyOutcome,
  type LeftOut,
  type ManifestUsed,
  type MissingFile,
  RecoveryPlan,
  type SurveyedBlob,
  type SurveyedCopy,
  shownTime,
} from '../vault-format'

/**
 * Opens an encrypted file far enough to know what it holds (the records of a file or a bundle, or a
 * whole manifest), then closes it. Throws FileCipherError or the read error.
 */
export async function surveyBlob(
  input: string,
  keys: { vaultKey: Uint8Array; vaultId: string; backend?: AeadBackendName },
  source: { fallbackPath: string; encryptedBytes: number; sourceDateMs?: number },
  order: () => number,
): Promise<SurveyedBlob> {
  const stream = createReadStream(input, { highWaterMark: 1 << 20 })
  try {
    const opened = await openVaultBlob(stream, {
      vaultKey: keys.vaultKey,
      vaultId: keys.vaultId,
      ...cipherByName(keys.backend),
    })
    return await surveyOpened(input, opened, source, order)
  } finally {
    stream.destroy()
  }
}
