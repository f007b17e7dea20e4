// What the owner is told and what their history keeps of what the parts report: notices (to the
// window always, to the desktop when the owner allows it), the credits-low warning (once a week),
// a batch of uploads ended, a release started, cancelled or done, and every history append, with one
// notice when the history cannot be kept.
import type { VaultDetails } from '../../../service-client'
import { runwayMonths } from '../../../shared/check-in-reserve'
import { eventChannels } from '../../../shared/ipc/contract'
import type { ActivityEntry, AppNotice, UploadItemView, VaultView } from '../../../shared/ipc/vault-types'
import type { EventHub } from '../ipc/handler-table'
import type { BatchCounts } from '../uploads/upload-queue'
import type { UploadItem } from '../uploads/upload-records'
import { type ActivityInput, type ActivityLog, MAX_NAMES } from './activity-log'
import type { DeviceRecords } from './device-records'
import type { ReadinessFacts } from './readiness-facts'
import { batchEndNotice, creditsLowNotice, storageProblemNotice } from './vault-notices'
import type { VaultStateChange, VaultWatcher } from './vault-watcher'

/** Below this many months of check-ins, a notification warns (once a week). */
const CREDITS_LOW_MONTHS = 3
const CREDITS_LOW_REPEAT_MS = 7 * 24 * 3600_000

export interface OwnerNoticeDeps {
  window: EventHub
  /** A desktop notification (the shells show it). */
  desktop: (notice: AppNotice) => void
  notificationsOn: () => boolean
  activity: ActivityLog
  records: DeviceRecords
  watcher: VaultWatcher
  now: () => number
  view: (vault: VaultDetails) => VaultView
  labelOf: (vaultId: string) => string
  service: () => ReadinessFacts['service']
  uploads: () => readonly UploadItem[]
  /** Vaults whose release the owner is starting or cancelling from this device right now. */
  releaseActions: ReadonlySet<string>
}

export class OwnerNotices {
  readonly #deps: OwnerNoticeDeps
  #activityProblemTold: string | undefined

  constructor(deps: OwnerNoticeDeps) {
    this.#deps = deps
  }

  notice(notice: AppNotice): void {
    this.#deps.window.emit(eventChannels.notice, notice)
    if (this.#deps.notificationsOn()) this.#deps.desktop(notice)
  }

  warnIfCreditsLow(vault: VaultDetails): void {
    const { records, now } = this.#deps
    const view = this.#deps.view(vault)
    if (view.state !== 'active' || view.releaseTrigger !== 'dead_man_switch') return
    const months = runwayMonths(view.creditsBalance, view.checkInFrequency)
    if (months === null || months >= CREDITS_LOW_MONTHS) return
    const last = records.get(vault.id).creditsLowNoticeAt
    if (last && now() - Date.parse(last) < CREDITS_LOW_REPEAT_MS) return
    void records.update(vault.id, (r) => ({ ...r, creditsLowNoticeAt: new Date(now()).toISOString() }))
    this.notice(creditsLowNotice(view, months, this.#deps.service()))
  }

  /** Appends to the history and tells the window; the owner hears once of a history that cannot be kept. */
  record(input: ActivityInput): ActivityEntry | undefined {
    const { activity } = this.#deps
    const entry = activity.append(input)
    if (entry) this.#deps.window.emit(eventChannels.activityAdded, entry)
    const problem = activity.problem
    if (problem && problem !== this.#activityProblemTold) {
      this.#activityProblemTold = problem
      this.notice(storageProblemNotice('activity history', problem))
    }
    return entry
  }

  /** Every item of a batch of uploads has finished: tell the owner and record it. */
  batchEnded(item: UploadItemView, counts: BatchCounts): void {
    const { done, failed } = counts
    this.notice(batchEndNotice(this.#deps.labelOf(item.vaultId), item.vaultId, counts))
    const names: string[] = []
    for (const i of this.#deps.uploads()) {
      if (names.length >= MAX_NAMES) break
      if (i.batchId === item.batchId && i.state === 'done') names.push(i.relativePath)
    }
    this.record({
      vaultId: item.vaultId,
      kind: 'upload',
      source: 'window',
      // Retrying the failed files ends the batch again: a new entry only when its counts moved.
      ref: `upload:${item.batchId}:${done}:${failed}`,
      detail: { files: done, failed, credits: counts.creditsConsumed, names },
    })
  }

  /** A release started, cancelled or done: the owner's own when started from this device. */
  stateChanged({ vaultId, from, to }: VaultStateChange): void {
    if (from === to) return
    const source = this.#deps.releaseActions.has(vaultId) ? 'window' : 'service'
    const vault = this.#deps.watcher.snapshot().find((v) => v.id === vaultId)
    if (to === 'releasing') {
      this.record({
        vaultId,
        kind: 'release-started',
        source,
        ref: `release-started:${vault?.releaseStartedAt ?? new Date(this.#deps.now()).toISOString()}`,
      })
    } else if (to === 'released') {
      this.record({ vaultId, kind: 'released', source, ref: 'released' })
    } else if (to === 'active' && from === 'releasing') {
      this.record({ vaultId, kind: 'release-cancelled', source })
    }
  }
}
