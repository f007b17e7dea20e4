// The words of the notices the app raises on its own (the window's notice bar, and a desktop
// notification when the owner allows them): a release started, credits running short, a batch of
// uploads ended, a check-in on unlock that failed, files this device cannot keep.
import type { AppNotice, ServiceSummary } from '../../../shared/ipc/vault-types'
import { revealControls } from '../../../shared/untrusted-text'
import { desktopLanguage, desktopText } from '../desktop-text'
import type { BatchCounts } from '../uploads/upload-queue'
import type { ReminderDue } from './checkin-schedule'
import type { ClaimAlarm, ReleaseAlarm } from './vault-watcher'

/** A vault's label comes from the service: desktop notifications draw it raw, so its hidden characters show. */
const shown = revealControls
/** The notice in the words of the system's language, marked with it when the window's page is not. */
function notice(fields: AppNotice): AppNotice {
  const lang = desktopLanguage()
  return lang ? { ...fields, lang } : fields
}

export function releasingNotice(label: string, alarm: ReleaseAlarm): AppNotice {
  const t = desktopText().notices
  return notice({
    kind: 'releasing',
    title: t.releasingTitle(shown(label)),
    body: t.releasingBody(alarm.daysLeftToCancel),
    vaultId: alarm.vaultId,
  })
}

/** A guardian claimed a release short of the threshold: if the owner is well, they should know now. */
export function claimNotice(label: string, alarm: ClaimAlarm): AppNotice {
  const t = desktopText().notices
  return notice({
    kind: 'claimed',
    title: t.claimTitle(shown(alarm.guardian), shown(label)),
    body: t.claimBody(shown(alarm.guardian), Date.parse(alarm.claimedAt), alarm.count, alarm.needed),
    vaultId: alarm.vaultId,
  })
}

/** The reminder's own words, with the vault's name as the window shows it now. */
export function reminderNotice(due: ReminderDue, label: string): AppNotice {
  return notice({
    kind: 'reminder',
    title: due.title,
    body: due.body.replace(due.label, shown(label)),
    vaultId: due.vaultId,
  })
}

/**
 * Where a remote service's credits come from: the operator's page it names, or its operator when it
 * names none (never the service's own address, an API that answers 404 to a browser).
 */
export function buyCreditsText(service: ServiceSummary | null): string {
  const t = desktopText().notices
  return service?.credits.buyAt ? t.buyCreditsAt(service.credits.buyAt) : t.buyCreditsUnknown
}

export function creditsLowNotice(
  vault: { id: string; label: string; creditsBalance: number },
  months: number,
  service: ServiceSummary | null,
): AppNotice {
  const t = desktopText().notices
  const where = service?.credits.addHere ? t.addCreditsHere : buyCreditsText(service)
  return notice({
    kind: 'credits-low',
    title: t.creditsLowTitle(shown(vault.label)),
    body: t.creditsLowBody(vault.creditsBalance, Math.floor(months * 30), where),
    vaultId: vault.id,
  })
}

/** When a batch of uploads has ended: what failed, or what was stored. */
export function batchEndNotice(label: string, vaultId: string, counts: BatchCounts): AppNotice {
  const t = desktopText().notices
  const { done, failed } = counts
  if (failed > 0) {
    return notice({
      kind: 'upload-failed',
      title: t.uploadsFailedTitle(failed),
      body: `${shown(label)}: ${counts.firstError?.message ?? t.uploadsFailedReason}`,
      vaultId,
    })
  }
  return notice({
    kind: 'upload-done',
    title: t.backupDoneTitle(done),
    body: t.backupDoneBody(shown(label), done, counts.creditsConsumed),
    vaultId,
  })
}

export function unlockCheckInFailedNotice(label: string, vaultId: string, message: string): AppNotice {
  return notice({
    kind: 'reminder',
    title: desktopText().notices.unlockCheckInFailedTitle(shown(label)),
    body: message,
    vaultId,
  })
}

/** The vault's list of files (its manifest) could not be written: the heirs would miss what changed. */
export function manifestProblemNotice(label: string, vaultId: string, problem: string): AppNotice {
  return notice({
    kind: 'upload-failed',
    title: desktopText().notices.manifestProblemTitle(shown(label)),
    body: problem,
    vaultId,
  })
}

/** The upload list (uploads.sqlite) or the activity history (activity.sqlite) cannot be kept. */
export function storageProblemNotice(what: 'upload list' | 'activity history', problem: string): AppNotice {
  const t = desktopText().notices
  const title = what === 'upload list' ? t.uploadListProblemTitle : t.activityHistoryProblemTitle
  return notice({ kind: 'upload-failed', title, body: problem })
}
