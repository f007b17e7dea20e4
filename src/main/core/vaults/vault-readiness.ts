// Readiness: which conditions for a release that really reaches the heirs hold for one vault, as a
// pure function of what the app knows. Each unmet item says what is missing and the one action
// that fixes it; the window, the vault cards and the tray all show this one model.
import {
  type CheckInFrequency,
  type GuardianKitCheck,
  KIT_CHECK_LIMITS,
  type Rehearsal,
  type ReleaseTrigger,
  SSS_PRESET_SHAPE,
  type SssPreset,
} from '../../../shared/api'
import { checkInReserveCredits, DEFAULT_RESERVE_MONTHS } from '../../../shared/check-in-reserve'
import type {
  ReadinessItem,
  ReadinessItemId,
  ServiceSummary,
  VaultReadiness,
} from '../../../shared/ipc/vault-types'

export interface ReadinessInput {
  vault: {
    releaseTrigger: ReleaseTrigger | null
    checkInFrequency: CheckInFrequency | null
    sssPreset: SssPreset
    creditsBalance: number
    heirCount: number
    guardianCount: number
  }
  /** null while the service has not been asked yet. */
  service: ServiceSummary | null
  /** Guardians by answer; null when the service does not report answers. */
  guardians: { accepted: number; pending: number; declined: number } | null
  /**
   * Each guardian's kit check in the current split (extension kit-check); null when the service does
   * not offer kit checks. A guardian without one has no registered code (kits made elsewhere or before).
   */
  kitChecks: Array<{ name: string; kitCheck: GuardianKitCheck | null }> | null
  /** The current split's kits on this device and how many the owner has handed over. */
  kits: { total: number; handedOver: number; splitCreatedAt: string | null }
  keyOnDevice: boolean
  keyDurable: boolean
  ownerKitConfirmed: boolean
  /** The latest practice run; 'unsupported' when the service has no rehearsals. */
  rehearsal: Rehearsal | null | 'unsupported'
}

type Draft = Omit<ReadinessItem, 'id'>

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

function reachable({ service }: ReadinessInput): Draft {
  const title = 'Heirs and guardians can reach the service'
  const fix = { label: 'Connect to an always-on service', action: { kind: 'open-settings' as const } }
  if (!service) return { met: false, title, detail: 'Checking the service…', fix: null }
  if (service.trial) {
    return {
      met: false,
      title,
      detail:
        'This is a trial: the vault lives on this computer. Heirs and guardians cannot reach it, and nothing can start a release while the computer is off.',
      fix,
    }
  }
  if (!service.reachableByOthers) {
    return {
      met: false,
      title,
      detail: `The address heirs would be given, ${service.publicUrl}, only works on this computer or its local network.`,
      fix,
    }
  }
  return { met: true, title, detail: `Heirs and guardians are sent to ${service.publicUrl}.`, fix: null }
}

function mail({ service }: ReadinessInput): Draft {
  const title = 'The service delivers e-mail'
  if (!service) return { met: false, title, detail: 'Checking the service…', fix: null }
  if (service.trial) {
    return {
      met: false,
      title,
      detail:
        'No e-mail leaves this computer: guardians get no invitation and heirs would never hear of a release.',
      fix: { label: 'Connect to an always-on service', action: { kind: 'open-settings' } },
    }
  }
  if (service.mailConfigured === null) {
    return { met: true, title, detail: 'The service sends its own e-mail (taken at its word).', fix: null }
  }
  if (!service.mailConfigured) {
    return {
      met: false,
      title,
      detail:
        'The service has no e-mail server configured, so invitations and release e-mails stay unsent. Whoever runs it must set one up (serve --smtp).',
      fix: null,
    }
  }
  const test = service.lastMailTest
  if (test?.delivered) {
    return { met: true, title, detail: `A test message to ${test.to} was delivered.`, fix: null }
  }
  return {
    met: false,
    title,
    detail: test
      ? `The last test message to ${test.to} was not delivered: ${test.error ?? 'no reason given'}.`
      : 'An e-mail server is configured; send a test message to be sure it delivers.',
    fix: { label: 'Send a test e-mail', action: { kind: 'send-test-mail' } },
  }
}

function trigger({ vault }: ReadinessInput): Draft {
  const title = 'A release trigger is set'
  return vault.releaseTrigger
    ? { met: true, title, detail: 'The vault knows when to release.', fix: null }
    : {
        met: false,
        title,
        detail: 'Without a trigger nothing will ever reach your heirs.',
        fix: { label: 'Choose a trigger', action: { kind: 'open-tab', tab: 'release' } },
      }
}

function guardians({ vault, guardians }: ReadinessInput): Draft {
  const { threshold } = SSS_PRESET_SHAPE[vault.sssPreset]
  const title = `At least ${threshold} guardians accepted`
  const fix = { label: 'Open guardians', action: { kind: 'open-tab' as const, tab: 'guardians' as const } }
  if (!guardians) {
    return {
      met: false,
      title,
      detail: "This service does not report guardians' answers, so the app cannot confirm them.",
      fix,
    }
  }
  if (guardians.accepted >= threshold) {
    return { met: true, title, detail: `${plural(guardians.accepted, 'guardian')} accepted.`, fix: null }
  }
  const waiting = guardians.pending > 0 ? `; ${guardians.pending} not answered yet` : ''
  return {
    met: false,
    title,
    detail: `${guardians.accepted} of the ${threshold} needed have accepted${waiting}.`,
    fix,
  }
}

const shortDate = (iso: string) =>
  new Date(iso).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  })

/** One guardian's kit check as the owner reads it; `since` is when the current kits were made. */
export function kitCheckLine(name: string, check: GuardianKitCheck | null, since: string | null): string {
  if (!check) return `${name}: no check code registered for this kit`
  const reminded = check.remindedAt ? ` — reminded ${shortDate(check.remindedAt)}` : ''
  if (check.overdue) {
    const from = check.confirmedAt ?? since
    return `${name}: not confirmed${from ? ` since ${shortDate(from)}` : ''}${reminded}`
  }
  if (check.confirmedAt) return `${name}: kit confirmed ${shortDate(check.confirmedAt)}`
  return `${name}: not confirmed yet${reminded}`
}

/** Guardians the service reminded to check their kit who did not confirm in time, named as a step. */
function overdueKitChecks({ kitChecks }: ReadinessInput): string | null {
  const late = (kitChecks ?? []).filter((g) => g.kitCheck?.overdue).map((g) => g.name)
  if (late.length === 0) return null
  const names = late.length === 1 ? late[0]! : `${late.slice(0, -1).join(', ')} and ${late.at(-1)}`
  return `Ask ${names} to check ${late.length === 1 ? 'their kit' : 'their kits'}: reminded, not confirmed in ${KIT_CHECK_LIMITS.confirmWithinDays} days (the check code on the kit, typed on the guardian page).`
}

function kits(input: ReadinessInput): Draft {
  const draft = kitsHandedOver(input)
  const { kitChecks, kits } = input
  if (!kitChecks || kitChecks.length === 0) return draft
  const lines = kitChecks.map((g) => kitCheckLine(g.name, g.kitCheck, kits.splitCreatedAt))
  const overdue = overdueKitChecks(input)
  if (!overdue) return { ...draft, lines }
  return {
    ...draft,
    met: false,
    detail: draft.met ? overdue : `${draft.detail} ${overdue}`,
    lines,
    fix: draft.fix ?? { label: 'Open guardians', action: { kind: 'open-tab', tab: 'guardians' } },
  }
}

function kitsHandedOver({ vault, kits, keyOnDevice }: ReadinessInput): Draft {
  const title = 'Every guardian holds the current kit'
  const fix = { label: 'Hand out kits', action: { kind: 'open-tab' as const, tab: 'guardians' as const } }
  if (vault.guardianCount === 0) {
    return { met: false, title, detail: 'No guardians yet, so no kits to hand out.', fix }
  }
  if (kits.total < vault.guardianCount) {
    return {
      met: false,
      title,
      detail: keyOnDevice
        ? 'Some guardians have no kit of the current split on this device.'
        : 'Kits are made on the computer that holds the vault key; it is not on this one.',
      fix,
    }
  }
  if (kits.handedOver < kits.total) {
    return {
      met: false,
      title,
      detail: `${kits.handedOver} of ${plural(kits.total, 'kit')} of the current split marked as handed over. Each guardian's real kit counts once you confirm handing it over; a practice run never checks real kits.`,
      fix,
    }
  }
  return {
    met: true,
    title,
    detail: 'You confirmed handing each guardian the kit of the current split.',
    fix: null,
  }
}

function ownerKit({ ownerKitConfirmed, keyOnDevice }: ReadinessInput): Draft {
  const title = 'Your owner kit is saved'
  if (ownerKitConfirmed) return { met: true, title, detail: 'You confirmed the saved kit.', fix: null }
  return {
    met: false,
    title,
    detail: keyOnDevice
      ? 'The owner kit is the vault key on paper: without it a lost computer means lost files.'
      : 'The vault key is not on this device; import the owner kit here to confirm it.',
    fix: { label: 'Save the owner kit', action: { kind: 'save-owner-kit' } },
  }
}

function heir({ vault }: ReadinessInput): Draft {
  const title = 'At least one heir'
  return vault.heirCount > 0
    ? { met: true, title, detail: `${plural(vault.heirCount, 'heir')} named.`, fix: null }
    : {
        met: false,
        title,
        detail: 'Nobody would receive the files.',
        fix: { label: 'Add an heir', action: { kind: 'open-tab', tab: 'heirs' } },
      }
}

function runway({ vault }: ReadinessInput): Draft {
  const title = 'Credits for 12 months of check-ins'
  // Said as it is: no trigger yet is not "this trigger" (issue 30, point 11).
  if (!vault.releaseTrigger) {
    return { met: true, title, detail: 'No release trigger is set yet, so no check-ins are due.', fix: null }
  }
  if (vault.releaseTrigger !== 'dead_man_switch' || !vault.checkInFrequency) {
    const trigger = vault.releaseTrigger === 'manual' ? 'A manual release' : 'A guardian claim'
    return { met: true, title, detail: `${trigger} needs no check-ins.`, fix: null }
  }
  const needed = checkInReserveCredits(vault.checkInFrequency, DEFAULT_RESERVE_MONTHS)
  if (vault.creditsBalance >= needed) {
    return {
      met: true,
      title,
      detail: `${vault.creditsBalance} credits; 12 months need ${needed}.`,
      fix: null,
    }
  }
  return {
    met: false,
    title,
    detail: `12 months of ${vault.checkInFrequency} check-ins need ${needed} credits and the balance is ${vault.creditsBalance}. A check-in that cannot be paid lets the vault release by accident.`,
    fix: { label: 'Add credits', action: { kind: 'add-credits' } },
  }
}

function keyStorage({ keyDurable, ownerKitConfirmed }: ReadinessInput): Draft {
  const title = 'The vault key is stored durably'
  if (keyDurable)
    return { met: true, title, detail: "The key is in this computer's protected storage.", fix: null }
  return {
    met: false,
    title,
    detail: ownerKitConfirmed
      ? 'This computer has no keychain: the key lasts only while the app runs, and your saved owner kit is its only lasting copy.'
      : 'This computer has no keychain: the key lasts only while the app runs. Save the owner kit before anything else.',
    fix: ownerKitConfirmed
      ? { label: 'See key storage', action: { kind: 'open-settings' } }
      : { label: 'Save the owner kit', action: { kind: 'save-owner-kit' } },
  }
}

function rehearsal({ rehearsal, kits }: ReadinessInput): Draft {
  const title = 'A practice release passed'
  const fix = { label: 'Start a practice run', action: { kind: 'start-rehearsal' as const } }
  if (rehearsal === 'unsupported') {
    return { met: false, title, detail: 'This service cannot run a practice release.', fix: null }
  }
  if (!rehearsal) {
    return {
      met: false,
      title,
      detail: "An heir has not yet practised recovering a practice file with the guardians' practice kits.",
      fix,
    }
  }
  if (rehearsal.state === 'passed' && rehearsal.passedAt) {
    if (kits.splitCreatedAt && Date.parse(rehearsal.passedAt) < Date.parse(kits.splitCreatedAt)) {
      return {
        met: false,
        title,
        detail:
          'Guardians changed after the last practice passed (one was added or removed): practise again with the current guardians.',
        fix,
      }
    }
    return {
      met: true,
      title,
      detail: `${rehearsal.heir.name} recovered the practice file with the guardians' practice kits.`,
      fix: null,
    }
  }
  if (rehearsal.state === 'running') {
    return {
      met: false,
      title,
      detail: `Practice run with ${rehearsal.heir.name} under way.`,
      fix: { label: 'See the practice run', action: { kind: 'start-rehearsal' } },
    }
  }
  return { met: false, title, detail: `The last practice run was ${rehearsal.state} before it passed.`, fix }
}

const RULES: Record<ReadinessItemId, (input: ReadinessInput) => Draft> = {
  reachable,
  mail,
  trigger,
  guardians,
  kits,
  'owner-kit': ownerKit,
  heir,
  runway,
  'key-storage': keyStorage,
  rehearsal,
}

export function vaultReadiness(input: ReadinessInput): VaultReadiness {
  const items = (Object.keys(RULES) as ReadinessItemId[]).map((id) => ({ id, ...RULES[id](input) }))
  const stepsLeft = items.filter((item) => !item.met).length
  return {
    ready: stepsLeft === 0,
    stepsLeft,
    summary: stepsLeft === 0 ? 'Ready' : `${plural(stepsLeft, 'step')} left`,
    items,
  }
}
