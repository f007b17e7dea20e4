// What readiness-related results say: a test e-mail, a practice run, what deleting a vault loses.
// Pure functions, unit tested.
import type { MailTestResult, Rehearsal } from '../../shared/api'
import { formatDateTime } from './units'

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`
}

/** The outcome of a test e-mail, with what to do next. */
export function mailTestText(result: MailTestResult): string {
  return result.delivered
    ? `Test e-mail sent to ${result.to} on ${formatDateTime(result.at)}. Check that it arrived (and is not in spam): heirs and guardians get their e-mails the same way.`
    : `The test e-mail to ${result.to} could not be sent (${formatDateTime(result.at)})${result.error ? `: ${result.error}` : ''}. Check the service's mail settings, or ask whoever runs the service, then send another.`
}

/** What deleting a vault removes, in the dialog's words. */
export function deletionLosses(v: { assetCount: number; guardianCount: number; heirCount: number }): string {
  return `${plural(v.assetCount, 'file')}, ${plural(v.guardianCount, 'guardian')} and ${plural(v.heirCount, 'heir')}`
}

export interface RehearsalStage {
  key: 'invited' | 'opened' | 'downloaded' | 'passed'
  label: string
  at: string | null
}

/** The practice run's steps in order, each with when it happened (null: not yet). */
export function rehearsalStages(r: Rehearsal, mailSent = true): RehearsalStage[] {
  const guardians = r.guardiansNotified
  return [
    {
      key: 'invited',
      label: mailSent
        ? `Practice e-mail to ${r.heir.name}${guardians ? ` and ${plural(guardians, 'guardian')}` : ''}`
        : `Practice started for ${r.heir.name} (no e-mail was sent)`,
      at: r.startedAt,
    },
    { key: 'opened', label: `${r.heir.name} opened the practice access`, at: r.openedAt },
    { key: 'downloaded', label: `Downloaded the sample file (${r.asset.filename})`, at: r.downloadedAt },
    { key: 'passed', label: "Opened it with the guardians' kits: passed", at: r.passedAt },
  ]
}

const WAITING: Record<RehearsalStage['key'], (heir: string) => string> = {
  invited: () => 'the practice to start',
  opened: (heir) => `${heir} to open the practice access`,
  downloaded: (heir) => `${heir} to download the sample file`,
  passed: (heir) => `${heir} to open it with the guardians' kits`,
}

/** One sentence for the state of a practice run (shown with data-testid="rehearsal-state"). */
export function rehearsalStateText(r: Rehearsal, now: number): string {
  switch (r.state) {
    case 'running': {
      const next = rehearsalStages(r).find((s) => !s.at)
      const expired = Date.parse(r.expiresAt) <= now
      return `Practice running with ${r.heir.name}${next ? `, waiting for ${WAITING[next.key](r.heir.name)}` : ''}. ${expired ? 'It has reached its end date and will close shortly.' : `It ends by itself on ${formatDateTime(r.expiresAt)}.`}`
    }
    case 'passed':
      return `Passed on ${formatDateTime(r.passedAt)}: ${r.heir.name} rebuilt the key from the guardians' kits and opened the sample file. On the day, it will work the same way.`
    case 'expired':
      return `Expired on ${formatDateTime(r.expiresAt)} before ${r.heir.name} finished. Nothing was released. Start another practice when they have time.`
    case 'cancelled':
      return `Ended before it finished. Nothing was released; ${r.heir.name}'s practice access no longer works.`
  }
}
