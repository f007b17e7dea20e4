// Polls the connected account's vaults (the service sends no events) within a request budget that
// leaves most of the per-minute GET limit to the UI. Emits state changes and, for `releasing`, an
// alarm with the days left to cancel - also once at app start when the release began while the app
// was closed (last seen states are persisted).
// Every vault, releasing or not, is read every 5 minutes, by the list: the app spends days in the
// tray, and each read through got leaves ~100 KiB of garbage that an idle process keeps (bench:idle:
// a releasing vault read every minute grew the app 4.8 MB in 30 minutes, where the list alone stays
// level). The list is what sees a release start, so the alarm's timing does not depend on this. A
// release is 30 days long, the service e-mails the owner at its start, and the countdown is computed
// here from its start: a cancel made elsewhere or the release's end seen 5 minutes late costs nothing,
// and the window reads again when it is shown.
import { EventEmitter } from 'node:events'
import { join } from 'node:path'
import { type VaultApiClient, VaultApiError, type VaultDetails } from '../../../service-client'
import type { VaultState } from '../../../shared/api'
import { AppError } from '../../../shared/app-error'
import { JsonFileWriter, readJsonFile } from '../storage/json-file'
import { daysLeftToCancel } from './release-countdown'
import { wellFormedClaims } from './vault-view'

export interface VaultStateChange {
  vaultId: string
  /** null on the first sighting ever. */
  from: VaultState | null
  to: VaultState
  vault: VaultDetails
}

export interface ReleaseAlarm {
  vaultId: string
  daysLeftToCancel: number
  releaseStartedAt: string | null
  /** True when the release was already known before this app session (repeated at start). */
  repeated: boolean
  title: string
  body: string
}

/** A guardian claimed a release of an active vault, short of the threshold: the owner should hear at once. */
export interface ClaimAlarm {
  vaultId: string
  /** The guardian who claimed last, as the owner named them. */
  guardian: string
  count: number
  needed: number
  claimedAt: string
}

export interface PollFailure {
  vaultId: string | null
  code: string
  userMessage: string
  /** What failed inside, apart from the sentence (see AppError). */
  detail?: string
}

export interface VaultWatcherEvents {
  /** Every successful poll of a vault (fresh data for the UI and the tray). */
  vault: [VaultDetails]
  /** Every successful read of the whole list, even an empty one (an account with no vault). */
  listed: [VaultDetails[]]
  'state-change': [VaultStateChange]
  alarm: [ReleaseAlarm]
  'claim-alarm': [ClaimAlarm]
  'vault-removed': [string]
  'poll-failed': [PollFailure]
}

interface SeenVault {
  state: VaultState
  /** When the vault was last seen, as of the last time the file was written (a state changed). */
  lastSeenAt: string
  /** When this app first saw the vault releasing (fallback when the service omits the start). */
  firstSeenReleasingAt?: string
}

interface WatcherFile {
  version: 1
  vaults: Record<string, SeenVault>
}

export interface VaultWatcherOptions {
  client: () => Promise<VaultApiClient>
  userDataDir?: string
  now?: () => number
  /** Poll interval of a vault. */
  baseIntervalMs?: number
  /** GET requests per minute the watcher allows itself (the spec allows 120 per key). */
  budgetPerMinute?: number
  /** How often the vault list is re-read to discover new or removed vaults. */
  listIntervalMs?: number
}

export function releaseAlarmText(vaultId: string, days: number): { title: string; body: string } {
  return {
    title: 'A vault is releasing',
    body: `Vault ${vaultId} started releasing to its heirs. You have ${days} day${days === 1 ? '' : 's'} left to cancel if this was not intended: open Vault Desktop and choose Cancel release.`,
  }
}

export class VaultWatcher extends EventEmitter<VaultWatcherEvents> {
  readonly #options: Required<Omit<VaultWatcherOptions, 'userDataDir'>>
  readonly #writer: JsonFileWriter<WatcherFile> | undefined
  #seen: Record<string, SeenVault>
  readonly #latest = new Map<string, VaultDetails>()
  readonly #nextPollAt = new Map<string, number>()
  /** Vaults whose release was already alarmed in this session. */
  readonly #alarmed = new Set<string>()
  /** Per vault, the latest claim already alarmed in this session (a new claim alarms again). */
  readonly #claimAlarmed = new Map<string, string>()
  #lastListAt = Number.NEGATIVE_INFINITY
  #timer: ReturnType<typeof setTimeout> | undefined
  #running = false
  #polling: Promise<void> | undefined
  /** A state worth keeping changed since the file was last written (not merely seen again). */
  #unsaved = false
  /** With no client to poll with (no connection, no key): when to try again. */
  #clientRetryAt = Number.NEGATIVE_INFINITY

  private constructor(
    options: VaultWatcherOptions,
    seen: Record<string, SeenVault>,
    file: string | undefined,
  ) {
    super()
    this.#options = {
      client: options.client,
      now: options.now ?? Date.now,
      baseIntervalMs: options.baseIntervalMs ?? 5 * 60_000,
      budgetPerMinute: options.budgetPerMinute ?? 30,
      listIntervalMs: options.listIntervalMs ?? 5 * 60_000,
    }
    this.#seen = seen
    this.#writer = file ? new JsonFileWriter(file) : undefined
  }

  static async open(options: VaultWatcherOptions): Promise<VaultWatcher> {
    const file = options.userDataDir ? join(options.userDataDir, 'vault-watch.json') : undefined
    const state = file ? await readJsonFile<WatcherFile>(file, { version: 1, vaults: {} }) : undefined
    return new VaultWatcher(options, state?.vaults ?? {}, file)
  }

  /** The latest data of every watched vault. */
  snapshot(): VaultDetails[] {
    return [...this.#latest.values()]
  }

  lastSeenState(vaultId: string): VaultState | undefined {
    return this.#seen[vaultId]?.state
  }

  /** Poll interval of a vault given how many are watched, honouring the request budget. */
  pollInterval(): number {
    const count = Math.max(1, this.#nextPollAt.size)
    // Each minute: one list request plus one GET per vault per interval must fit the budget.
    const budgetFloor = Math.ceil((count * 60_000) / Math.max(1, this.#options.budgetPerMinute - 1))
    return Math.max(this.#options.baseIntervalMs, budgetFloor)
  }

  /** Makes a vault known right away (after creating it, for example) and polls it on the next pass. */
  watch(vaultId: string): void {
    if (!this.#nextPollAt.has(vaultId)) this.#nextPollAt.set(vaultId, this.#options.now())
    this.#wakeAtNextDue()
  }

  /** Feeds data obtained elsewhere (a check-in, a cancel) without spending a request. */
  observe(vault: VaultDetails): void {
    this.#nextPollAt.set(vault.id, this.#options.now() + this.pollInterval())
    this.#record(vault)
    // Seen outside a pass (created, checked in, released): its state is kept now, not at the next
    // pass, which may be minutes away (and would write while nothing changes).
    if (!this.#polling) void this.#saveIfChanged().catch(() => undefined)
    // It may now be the soonest due.
    this.#wakeAtNextDue()
  }

  /** One pass: re-list when due, then poll every vault whose time has come. Never throws. */
  pollDue(): Promise<void> {
    this.#polling ??= this.#pass().finally(() => {
      this.#polling = undefined
      this.#wakeAtNextDue()
    })
    return this.#polling
  }

  /** Polls everything now (app start, resume from sleep, the user pressing refresh). */
  async pollNow(): Promise<void> {
    await this.#polling
    this.#lastListAt = Number.NEGATIVE_INFINITY
    this.#clientRetryAt = Number.NEGATIVE_INFINITY
    for (const id of this.#nextPollAt.keys()) this.#nextPollAt.set(id, this.#options.now())
    await this.pollDue()
  }

  onResume(): Promise<void> {
    return this.pollNow()
  }

  /**
   * Polls now, then wakes only when the next vault or the list is due (not on a fixed tick: the app
   * spends days in the tray, and a wake-up a second was most of what it cost there).
   */
  start(): void {
    this.stop()
    this.#running = true
    void this.pollNow()
  }

  stop(): void {
    this.#running = false
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = undefined
  }

  /** The moment of the next request the watcher owes: the list's or the soonest vault's. */
  nextDueAt(): number {
    let next = this.#lastListAt + this.#options.listIntervalMs
    for (const at of this.#nextPollAt.values()) next = Math.min(next, at)
    return Math.max(next, this.#clientRetryAt)
  }

  #wakeAtNextDue(): void {
    if (!this.#running || this.#polling) return
    if (this.#timer) clearTimeout(this.#timer)
    // At least a second apart (a vault due now is polled by the pass under way or the next one); at
    // most the list interval, so a wall clock set back does not hold the watcher off for long.
    const delay = Math.min(
      Math.max(1_000, this.nextDueAt() - this.#options.now()),
      this.#options.listIntervalMs,
    )
    this.#timer = setTimeout(() => void this.pollDue(), delay)
    this.#timer.unref?.()
  }

  /** Forget everything (when the active connection changes). */
  reset(): void {
    this.#latest.clear()
    this.#nextPollAt.clear()
    this.#alarmed.clear()
    this.#claimAlarmed.clear()
    this.#lastListAt = Number.NEGATIVE_INFINITY
  }

  async flush(): Promise<void> {
    await this.#polling
    await this.#writer?.flush()
  }

  async #pass(): Promise<void> {
    let client: VaultApiClient
    try {
      client = await this.#options.client()
    } catch (error) {
      // Connecting again polls at once (pollNow); until then, no wake-up a second to fail again.
      this.#clientRetryAt = this.#options.now() + this.#options.baseIntervalMs
      this.#failed(null, error)
      return
    }
    const now = this.#options.now()
    if (now - this.#lastListAt >= this.#options.listIntervalMs) {
      this.#lastListAt = now
      try {
        const vaults = await client.listVaults()
        const ids = new Set(vaults.map((v) => v.id))
        for (const id of [...this.#nextPollAt.keys()]) {
          if (!ids.has(id)) {
            this.#nextPollAt.delete(id)
            this.#latest.delete(id)
            this.emit('vault-removed', id)
          }
        }
        // The list carries every field the watcher needs: no per-vault GET right after it.
        for (const v of vaults) this.observe(v)
        this.emit('listed', vaults)
      } catch (error) {
        this.#failed(null, error)
        return
      }
    }
    for (const [vaultId, at] of [...this.#nextPollAt]) {
      if (at > this.#options.now()) continue
      try {
        this.observe(await client.getVault(vaultId))
      } catch (error) {
        if (error instanceof VaultApiError && error.status === 404) {
          this.#nextPollAt.delete(vaultId)
          this.#latest.delete(vaultId)
          this.emit('vault-removed', vaultId)
          continue
        }
        this.#nextPollAt.set(vaultId, this.#options.now() + this.pollInterval())
        this.#failed(vaultId, error)
      }
    }
    await this.#saveIfChanged()
  }

  /** Written when a state changed, not at every pass: nothing changed, nothing written. */
  async #saveIfChanged(): Promise<void> {
    if (!this.#unsaved) return
    this.#unsaved = false
    await this.#writer?.write({ version: 1, vaults: this.#seen })
  }

  #record(vault: VaultDetails): void {
    const now = this.#options.now()
    const previous = this.#seen[vault.id]
    const from = previous?.state ?? null
    const seen: SeenVault = { state: vault.state, lastSeenAt: new Date(now).toISOString() }
    if (vault.state === 'releasing') {
      seen.firstSeenReleasingAt =
        previous?.state === 'releasing' && previous.firstSeenReleasingAt
          ? previous.firstSeenReleasingAt
          : new Date(now).toISOString()
    }
    if (previous?.state !== seen.state || previous.firstSeenReleasingAt !== seen.firstSeenReleasingAt)
      this.#unsaved = true
    this.#seen[vault.id] = seen
    this.#latest.set(vault.id, vault)
    this.emit('vault', vault)
    if (from !== vault.state) this.emit('state-change', { vaultId: vault.id, from, to: vault.state, vault })
    this.#alarmOnClaims(vault)
    if (vault.state !== 'releasing') {
      this.#alarmed.delete(vault.id)
      return
    }
    if (this.#alarmed.has(vault.id)) return
    this.#alarmed.add(vault.id)
    const firstSeen = seen.firstSeenReleasingAt ? Date.parse(seen.firstSeenReleasingAt) : undefined
    const days = daysLeftToCancel(vault, now, firstSeen)
    this.emit('alarm', {
      vaultId: vault.id,
      daysLeftToCancel: days,
      releaseStartedAt: vault.releaseStartedAt ?? seen.firstSeenReleasingAt ?? null,
      repeated: from === 'releasing',
      ...releaseAlarmText(vault.id, days),
    })
  }

  /**
   * Claims short of the threshold on an active vault alarm once per latest claim and session (so again at
   * the next app start while they stand). At the threshold the release's own alarm speaks instead.
   */
  #alarmOnClaims(vault: VaultDetails): void {
    const claims = wellFormedClaims(vault.claims)
    if (vault.state !== 'active' || !claims || claims.count >= claims.needed) {
      this.#claimAlarmed.delete(vault.id)
      return
    }
    if (this.#claimAlarmed.get(vault.id) === claims.lastAt) return
    this.#claimAlarmed.set(vault.id, claims.lastAt)
    this.emit('claim-alarm', {
      vaultId: vault.id,
      guardian: claims.lastBy,
      count: claims.count,
      needed: claims.needed,
      claimedAt: claims.lastAt,
    })
  }

  #failed(vaultId: string | null, error: unknown): void {
    if (error instanceof AppError) {
      const { code, userMessage, detail } = error
      this.emit('poll-failed', { vaultId, code, userMessage, ...(detail !== undefined ? { detail } : {}) })
      return
    }
    this.emit('poll-failed', {
      vaultId,
      code: 'ERROR',
      userMessage: `Could not refresh the vaults: ${error instanceof Error ? error.message : String(error)}`,
    })
  }
}
