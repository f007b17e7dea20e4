// What an upload's estimate means for the owner's choice, apart from React and the bridge so it can
// be tested: whether to ask at all, whether anything fits the balance, what to add, and the estimate
// of uploading again a file that was not stored (cancelled or failed), which is charged like a new one.
import { creditsToDollars, uploadCostCredits } from '../../shared/api'
import { checkInReserveCredits } from '../../shared/check-in-reserve'
import type { UploadEstimateView, UploadItemView, VaultView } from '../../shared/ipc/vault-types'

/** The owner is asked before an upload above the threshold, over the balance, or into the reserve. */
export function needsConfirmation(e: UploadEstimateView, thresholdCredits: number): boolean {
  return !e.enough || e.eatsReserve || e.credits > thresholdCredits || e.tooLarge.length > 0
}

/**
 * Which of the files the balance pays for: every one, at least one, none, or cannot be told from
 * the totals. Each upload (a file, or a bundle of small files) costs at least 1 credit.
 */
export type UploadFit = 'all' | 'some' | 'none' | 'unknown'

export function uploadFit(e: UploadEstimateView): UploadFit {
  if (e.enough) return 'all'
  // The estimate knows each upload's cost: the balance pays for at least one, or for none.
  if (e.cheapestUploadCredits !== undefined && e.cheapestUploadCredits > 0) {
    return e.cheapestUploadCredits <= e.balanceCredits ? 'some' : 'none'
  }
  const uploads = e.files - e.bundledFiles + e.bundles
  if (e.balanceCredits < 1 || uploads <= 1) return 'none'
  // The cheapest upload costs at most the average one, so a balance of the average pays for it.
  if (e.balanceCredits * uploads >= e.credits) return 'some'
  return 'unknown'
}

/** Credits to add for the whole upload, and for the upload with the check-in reserve kept. */
export function creditsToAdd(e: UploadEstimateView): { needed: number; withReserve: number } {
  return {
    needed: Math.max(0, e.credits - e.balanceCredits),
    withReserve: Math.max(0, e.credits + e.reserveCredits - e.balanceCredits),
  }
}

/** The cost of uploading these unfinished items again, as a new upload's estimate shows it. */
export function retryEstimate(
  items: readonly UploadItemView[],
  vault: Pick<VaultView, 'id' | 'creditsBalance' | 'releaseTrigger' | 'checkInFrequency'>,
  reserveMonths: number,
): UploadEstimateView {
  let plaintextBytes = 0
  let encryptedBytes = 0
  let credits = 0
  for (const item of items) {
    const bytes = item.encryptedBytes ?? item.totalBytes ?? item.sizeBytes ?? 0
    plaintextBytes += item.sizeBytes ?? 0
    encryptedBytes += bytes
    // A bundle's share of its credits is not what the file costs going up again on its own.
    credits += item.bundleId ? uploadCostCredits(bytes) : (item.estimatedCredits ?? uploadCostCredits(bytes))
  }
  const frequency = vault.releaseTrigger === 'dead_man_switch' ? vault.checkInFrequency : null
  const reserveCredits = checkInReserveCredits(frequency, reserveMonths)
  const balance = vault.creditsBalance
  return {
    vaultId: vault.id,
    files: items.length,
    plaintextBytes,
    encryptedBytes,
    credits,
    dollars: creditsToDollars(credits),
    balanceCredits: balance,
    enough: credits <= balance,
    reserveCredits,
    reserveMonths: reserveCredits > 0 ? reserveMonths : 0,
    eatsReserve: credits > 0 && reserveCredits > 0 && balance - credits < reserveCredits,
    tooLarge: [],
    skipped: [],
    bundles: 0,
    bundledFiles: 0,
    creditsWithoutBundles: credits,
  }
}
