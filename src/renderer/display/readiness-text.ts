// What readiness-related results say: a test e-mail, a practice run, what deleting a vault loses.
// Pure functions, unit tested.
import type { GuardianKitCheck, MailTestResult, Rehearsal } from '../../shared/api'
import { text } from '../text'

const t = text.rehearsalText

/** The outcome of a test e-mail, with what to do next. */
export function mailTestText(result: MailTestResult): string {
  if (!result.delivered) return t.mailFailed(result.to, result.at, result.error ?? null)
  // Older services do not say how the mail travelled.
  const how = result.security ? ` ${t.mailSecurity[result.security]}` : ''
  return `${t.mailSent(result.to, result.at)}${how}`
}

/** What deleting a vault removes, in the dialog's words. */
export function deletionLosses(v: { assetCount: number; guardianCount: number; heirCount: number }): string {
  return text.deleteVault.losses(v.assetCount, v.guardianCount, v.heirCount)
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
      label: mailSent ? t.invited(r.heir.name, guardians) : t.startedNoMail(r.heir.name),
      at: r.startedAt,
    },
    { key: 'opened', label: t.opened(r.heir.name), at: r.openedAt },
    { key: 'downloaded', label: t.downloaded(r.sample.filename), at: r.downloadedAt },
    { key: 'passed', label: t.passed, at: r.passedAt },
  ]
}

const WAITING: Record<RehearsalStage['key'], (heir: string) => string> = {
  invited: () => t.waitingInvited,
  opened: (heir) => t.waitingOpened(heir),
  downloaded: (heir) => t.waitingDownloaded(heir),
  passed: (heir) => t.waitingPassed(heir),
}

/** One sentence for the state of a practice run (shown with data-testid="rehearsal-state"). */
export function rehearsalStateText(r: Rehearsal, now: number): string {
  switch (r.state) {
    case 'running': {
      const next = rehearsalStages(r).find((s) => !s.at)
      const expired = Date.parse(r.expiresAt) <= now
      const running = t.running(r.heir.name, next ? WAITING[next.key](r.heir.name) : null)
      return `${running} ${expired ? t.reachedEnd : t.endsOn(r.expiresAt)}`
    }
    case 'passed':
      return t.passedOn(r.passedAt, r.heir.name)
    case 'expired':
      return t.expiredOn(r.expiresAt, r.heir.name)
    case 'cancelled':
      return t.cancelled(r.heir.name)
  }
}

/**
 * A guardian's kit check as the Guardians tab shows it: confirmed when, not yet, or overdue (not
 * confirmed since the last check or since the kits were made, with the reminder). Undefined from a
 * service without kit checks.
 */
export function kitCheckText(
  check: GuardianKitCheck | null | undefined,
  kitsMadeAt: string | null,
): { text: string; overdue: boolean } | undefined {
  const k = text.guardians.kitCheck
  if (check === undefined) return undefined
  if (check === null) return { text: k.noCode, overdue: false }
  const reminded = check.remindedAt ? k.reminded(check.remindedAt) : ''
  if (check.overdue)
    return { text: `${k.overdue(check.confirmedAt ?? kitsMadeAt)}${reminded}`, overdue: true }
  if (check.confirmedAt) return { text: k.confirmed(check.confirmedAt), overdue: false }
  return { text: `${k.notYet}${reminded}`, overdue: false }
}
