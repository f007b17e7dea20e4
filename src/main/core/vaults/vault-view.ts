// How a vault looks to the window and the tray: its label, its view (what the service reports, what
// this device remembers, and its readiness) and the tray's summary of all views. Pure functions.
import type { VaultDetails } from '../../../service-client'
import type { VaultClaims } from '../../../shared/api'
import type {
  KeyStorageInfo,
  LostVaultKey,
  ServiceSummary,
  TrayView,
  VaultView,
} from '../../../shared/ipc/vault-types'
import { desktopText } from '../desktop-text'
import type { VaultRecord } from './device-records'
import type { VaultFacts } from './readiness-facts'
import { deriveTrayState } from './tray-state'
import { vaultReadiness } from './vault-readiness'

/** A short, stable name for a vault the owner has not named. */
export function vaultLabel(vaultId: string): string {
  return `Vault ${vaultId
    .replace(/^[a-z]+_/i, '')
    .slice(0, 6)
    .toUpperCase()}`
}

/** The owner's name for the vault: the one the service keeps wins; one kept on this device covers services without names. */
export function vaultName(vault: Pick<VaultDetails, 'name'>, record: VaultRecord): string | null {
  return vault.name || record.name || null
}

/** The service's claims when they make sense (a service may be wrong or hostile), else null: no alarm. */
export function wellFormedClaims(value: unknown): VaultClaims | null {
  if (!value || typeof value !== 'object') return null
  const c = value as Record<string, unknown>
  const count = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n > 0
  if (!count(c.count) || !count(c.needed)) return null
  if (typeof c.lastAt !== 'string' || Number.isNaN(Date.parse(c.lastAt))) return null
  if (typeof c.lastBy !== 'string' || c.lastBy.length > 400) return null
  return { count: c.count, needed: c.needed, lastAt: c.lastAt, lastBy: c.lastBy }
}

export interface VaultViewInput {
  vault: VaultDetails
  record: VaultRecord
  facts: VaultFacts | undefined
  service: ServiceSummary | null
  keyOnDevice: boolean
  keyStorage: KeyStorageInfo
  /** The key this computer recorded for the vault and cannot read back now. */
  keyLost?: LostVaultKey | null
  ownerKitConfirmed: boolean
  /** Files this computer knows the vault holds (its uploads, the manifest read here); null when none. */
  fileCount?: number | null
}

export function vaultView(input: VaultViewInput): VaultView {
  const { vault, record, facts, keyOnDevice, keyStorage, ownerKitConfirmed } = input
  const trigger = vault.releaseTrigger ?? record.releaseTrigger ?? null
  const name = vaultName(vault, record)
  const checkInFrequency = vault.checkInFrequency ?? record.checkInFrequency ?? null
  const readiness = vaultReadiness({
    vault: { ...vault, releaseTrigger: trigger, checkInFrequency },
    service: input.service,
    guardians: facts ? facts.guardians : { accepted: 0, pending: 0, declined: 0 },
    kits: facts?.kits ?? { total: 0, handedOver: 0, splitCreatedAt: null },
    kitChecks: facts?.kitChecks ?? null,
    keyOnDevice,
    keyDurable: keyStorage.durable,
    ownerKitConfirmed,
    rehearsal: facts ? facts.rehearsal : null,
  })
  return {
    ...vault,
    name,
    label: name ?? vaultLabel(vault.id),
    releaseTrigger: trigger,
    checkInFrequency,
    nextCheckInDue:
      trigger === 'dead_man_switch' ? (vault.nextCheckInDue ?? record.nextCheckInDue ?? null) : null,
    releaseStartedAt: vault.releaseStartedAt ?? null,
    contestationEndsAt: vault.contestationEndsAt ?? null,
    releasedAt: vault.releasedAt ?? null,
    lastCheckIn: record.lastCheckIn ?? null,
    keyOnDevice,
    keyStorage,
    keyLost: input.keyLost ?? null,
    ownerKitConfirmedAt: ownerKitConfirmed ? (record.ownerKit?.confirmedAt ?? null) : null,
    checkInLinks: typeof vault.checkInLinks === 'boolean' ? vault.checkInLinks : null,
    fileCount: input.fileCount ?? null,
    claims: wellFormedClaims(vault.claims),
    readiness,
  }
}

/** The tray: the worst state across the vaults, the next check-in, and each vault's readiness. */
export function trayView(vaults: readonly VaultView[], now: number, dueSoonDays: number): TrayView {
  // The tray uses the same short labels as the window.
  const tray = deriveTrayState(
    vaults.map((v) => ({
      vaultId: v.id,
      label: v.label,
      state: v.state,
      nextCheckInDue: v.state === 'active' ? v.nextCheckInDue : null,
      releaseStartedAt: v.releaseStartedAt,
      contestationEndsAt: v.contestationEndsAt,
    })),
    now,
    { dueSoonDays },
  )
  return {
    level: tray.level,
    text: tray.text,
    nextCheckIn: tray.nextCheckIn,
    readiness: vaults.map((v) => {
      const t = desktopText().readiness
      const runwayShort = v.readiness.items.some((i) => i.id === 'runway' && !i.met)
      const summary = t.summary(v.readiness.stepsLeft)
      return {
        vaultId: v.id,
        label: v.label,
        ready: v.readiness.ready,
        summary: runwayShort ? t.creditsShort(summary) : summary,
      }
    }),
  }
}
