// The words of the notices the app raises on its own (the window's notice bar, and a desktop
// notification when the owner allows them): a release started, credits running short, a batch of
// uploads ended, a check-in on unlock that failed, files this device cannot keep.
import type { AppNotice, ServiceSummary } from '../../../shared/ipc/vault-types'
import { revealControls } from '../../../shared/untrusted-text'
import type { BatchCounts } from '../uploads/upload-queue'
import type { ReminderDue } from './checkin-schedule'
import type { ClaimAlarm, ReleaseAlarm } from './vault-watcher'

/** "2,000", as the window writes counts. */
const grouped = (count: number) => count.toLocaleString('en-US')
const plural = (count: number, word: string) => `${grouped(count)} ${word}${count === 1 ? '' : 's'}`
/** A vault's label comes from the service: desktop notifications draw it raw, so its hidden characters show. */
const shown = revealControls

export function releasingNotice(label: string, alarm: ReleaseAlarm): AppNotice {
  const days = alarm.daysLeftToCancel
  return {
    kind: 'releasing',
    title: `${shown(label)} is releasing`,
    body: `Its release to your heirs has started. You have ${days} day${days === 1 ? '' : 's'} left to cancel if this was not intended: open the vault and choose "Cancel release".`,
    vaultId: alarm.vaultId,
  }
}

/** A guardian claimed a release short of the threshold: if the owner is well, they should know now. */
export function claimNotice(label: string, alarm: ClaimAlarm, claimedOn: string): AppNotice {
  const left = alarm.needed - alarm.count
  return {
    kind: 'claimed',
    title: `${shown(alarm.guardian)} claimed ${shown(label)}`,
    body: `${shown(alarm.guardian)}, a guardian, said on ${claimedOn} that you have died or can no longer act: ${alarm.count} of ${alarm.needed} claims needed to start a release. If you are well, talk to your guardians now. ${left === 1 ? 'One more claim starts' : `${left} more claims start`} a release, which you can cancel in this app for 30 days.`,
    vaultId: alarm.vaultId,
  }
}

/** The reminder's own words, with the vault's name as the window shows it now. */
export function reminderNotice(due: ReminderDue, label: string): AppNotice {
  return {
    kind: 'reminder',
    title: due.title,
    body: due.body.replace(due.label, shown(label)),
    vaultId: due.vaultId,
  }
}

/**
 * Where a remote service's credits come from: the operator's page it names, or its operator when it
 * names none (never the service's own address, an API that answers 404 to a browser).
 */
export function buyCreditsText(service: ServiceSummary | null): string {
  return service?.credits.buyAt
    ? `Buy credits on the page of your Vault Service's operator: ${service.credits.buyAt}`
    : 'Your Vault Service does not say where to buy credits: ask the operator of this service to add credits to your account.'
}

export function creditsLowNotice(
  vault: { id: string; label: string; creditsBalance: number },
  months: number,
  service: ServiceSummary | null,
): AppNotice {
  const where = service?.credits.addHere ? 'Add credits in Settings → Credits.' : buyCreditsText(service)
  return {
    kind: 'credits-low',
    title: `${shown(vault.label)}: credits for check-ins run short`,
    body: `The balance of ${vault.creditsBalance} credits pays check-ins for about ${Math.floor(months * 30)} more days. A check-in that cannot be paid lets the vault release by accident. ${where}`,
    vaultId: vault.id,
  }
}

/** When a batch of uploads has ended: what failed, or what was stored. */
export function batchEndNotice(label: string, vaultId: string, counts: BatchCounts): AppNotice {
  const { done, failed } = counts
  if (failed > 0) {
    return {
      kind: 'upload-failed',
      title: `${plural(failed, 'upload')} failed`,
      body: `${shown(label)}: ${counts.firstError?.message ?? 'see the upload list for the reason.'}`,
      vaultId,
    }
  }
  return {
    kind: 'upload-done',
    title: `Backup finished: ${plural(done, 'file')}`,
    body: `${shown(label)}: ${plural(done, 'file')} encrypted and stored for ${plural(counts.creditsConsumed, 'credit')}.`,
    vaultId,
  }
}

export function unlockCheckInFailedNotice(label: string, vaultId: string, message: string): AppNotice {
  return {
    kind: 'reminder',
    title: `${shown(label)}: the check-in on unlock did not go through`,
    body: message,
    vaultId,
  }
}

/** The upload list (uploads.sqlite) or the activity history (activity.sqlite) cannot be kept. */
export function storageProblemNotice(what: 'upload list' | 'activity history', problem: string): AppNotice {
  return { kind: 'upload-failed', title: `The ${what} needs attention`, body: problem }
}
