// Every word the app shows outside its window, in English: the tray's menu and tooltip, desktop
// notifications and the notices the core raises, the reminders, the native pickers' titles. The
// window's words are in src/renderer/text; both use the same mechanism (src/shared/text-catalogue.ts).
import type { LocaleFormat } from '../../../shared/locale-format'

export function english(f: LocaleFormat) {
  const days = (n: number) => f.count(n, { one: 'day', other: 'days' })
  const files = (n: number) => f.count(n, { one: 'file', other: 'files' })
  return {
    tray: {
      appName: 'Vault Desktop',
      openApp: 'Open Vault Desktop',
      quit: 'Quit',
      tooltip: (state: string) => `Vault Desktop — ${state}`,
      noVaults: 'No vaults yet',
      noCheckIns: 'No check-ins scheduled',
      releasing: (label: string, daysLeft: number) =>
        `${label} is releasing: ${days(daysLeft)} left to cancel`,
      nextCheckIn: (label: string, when: string) => `Next check-in: ${label} ${when}`,
      overdueCheckIn: (label: string, when: string) => `Check-in for ${label} overdue (due ${when})`,
      releasingItem: (label: string) => `${label} is releasing — open to cancel`,
      readinessItem: (label: string, summary: string) => `${label}: ${summary}`,
      ready: 'ready',
      checkInNow: (label: string) => `Check in now (${label})`,
      openVault: (label: string) => `Open ${label}`,
    },
    readiness: {
      summary: (stepsLeft: number) =>
        stepsLeft === 0 ? 'Ready' : `${f.count(stepsLeft, { one: 'step', other: 'steps' })} left`,
      creditsShort: (summary: string) => `credits run short · ${summary}`,
    },
    /** How far a check-in deadline is: "in 3 days", "2 hours ago". */
    due: {
      now: 'now',
      hoursAgo: (hours: number) => `${f.count(hours, { one: 'hour', other: 'hours' })} ago`,
      daysAgo: (count: number) => `${days(count)} ago`,
      inHours: (hours: number) => `in ${f.count(hours, { one: 'hour', other: 'hours' })}`,
      inDays: (count: number) => `in ${days(count)}`,
    },
    reminders: {
      beforeTitle: (when: string) => `Check-in due ${when}`,
      beforeBody: (label: string, dueAt: number) =>
        `${label}: check in before ${f.dateTime(dueAt)} so the release does not start. A check-in costs 2 credits.`,
      deadlineTitle: 'Check-in due now',
      deadlineBody: (label: string) =>
        `${label}: the check-in deadline has arrived. Check in now to keep the release from starting.`,
      overdueTitle: 'Check-in overdue',
      overdueBody: (label: string, when: string) =>
        `${label}: the check-in was due ${when}. Check in now; if the service starts the release, you have 30 days to cancel it.`,
    },
    notices: {
      releasingTitle: (label: string) => `${label} is releasing`,
      releasingBody: (daysLeft: number) =>
        `Its release to your heirs has started. You have ${days(daysLeft)} left to cancel if this was not intended: open the vault and choose "Cancel release".`,
      claimTitle: (guardian: string, label: string) => `${guardian} claimed ${label}`,
      claimBody: (guardian: string, claimedAt: number, count: number, needed: number) => {
        const claimedOn = f.date(claimedAt)
        const left = needed - count
        return `${guardian}, a guardian, said on ${claimedOn} that you have died or can no longer act: ${count} of ${needed} claims needed to start a release. If you are well, talk to your guardians now. ${left === 1 ? 'One more claim starts' : `${left} more claims start`} a release, which you can cancel in this app for 30 days.`
      },
      creditsLowTitle: (label: string) => `${label}: credits for check-ins run short`,
      creditsLowBody: (balance: number, daysLeft: number, where: string) =>
        `The balance of ${balance} credits pays check-ins for about ${daysLeft} more days. A check-in that cannot be paid lets the vault release by accident. ${where}`,
      addCreditsHere: 'Add credits in Settings → Credits.',
      buyCreditsAt: (page: string) => `Buy credits on the page of your Vault Service's operator: ${page}`,
      buyCreditsUnknown:
        'Your Vault Service does not say where to buy credits: ask the operator of this service to add credits to your account.',
      uploadsFailedTitle: (failed: number) =>
        `${f.count(failed, { one: 'upload', other: 'uploads' })} failed`,
      uploadsFailedReason: 'see the upload list for the reason.',
      backupDoneTitle: (done: number) => `Backup finished: ${files(done)}`,
      backupDoneBody: (label: string, done: number, credits: number) =>
        `${label}: ${files(done)} encrypted and stored for ${f.count(credits, { one: 'credit', other: 'credits' })}.`,
      unlockCheckInFailedTitle: (label: string) => `${label}: the check-in on unlock did not go through`,
      uploadListProblemTitle: 'The upload list needs attention',
      manifestProblemTitle: (label: string) => `${label}: the list of files needs attention`,
      activityHistoryProblemTitle: 'The activity history needs attention',
    },
    notifications: {
      checkInNow: 'Check in now',
      checkedInTitle: 'Checked in',
      checkedInBody: (label: string, daysLeft: number) => `${label}: next check-in due in ${days(daysLeft)}.`,
      checkInFailedTitle: 'Check-in failed',
    },
    pickers: {
      filesToBackUp: 'Choose files to back up',
      folderToBackUp: 'Choose a folder to back up',
      recoveryFolder: 'Choose where to put the recovered files',
      qrPhoto: 'Choose a photo of the QR code',
      images: 'Images',
      saveKitPdf: 'Save the guardian kit as PDF',
    },
  }
}

export type DesktopCatalogue = ReturnType<typeof english>
