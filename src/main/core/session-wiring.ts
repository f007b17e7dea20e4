// What the session's parts report, turned into what the others do: a vault read sets its reminder,
// the board and the credits warning; a failed listing is shown; release changes, alarms, claims and
// reminders become events for the shells and notices for the owner; a finished upload reads its
// vault again soon.
import type { EventEmitter } from 'node:events'
import type { SessionEvents } from './session-parts'
import type { UploadQueue } from './uploads/upload-queue'
import type { CheckInDeadlines } from './vaults/checkin-deadlines'
import type { CheckInReminders } from './vaults/checkin-schedule'
import type { OwnerNotices } from './vaults/owner-notices'
import type { ReadinessFacts } from './vaults/readiness-facts'
import type { VaultBoard } from './vaults/vault-board'
import { claimNotice, manifestProblemNotice, releasingNotice, reminderNotice } from './vaults/vault-notices'
import type { VaultWatcher } from './vaults/vault-watcher'

export interface SessionWiring {
  watcher: VaultWatcher
  reminders: CheckInReminders
  queue: UploadQueue
  deadlines: CheckInDeadlines
  events: EventEmitter<SessionEvents>
  board: VaultBoard
  notices: OwnerNotices
  facts: ReadinessFacts
  /** Whether a connection is active (without one a failed listing is no error to show). */
  connected: () => boolean
  /** One read of the vault soon (several asks in a row make one read). */
  refreshSoon: (vaultId: string) => void
}

export function wireSession(w: SessionWiring): void {
  const { watcher, reminders, queue, deadlines, events, board, notices, facts } = w
  watcher.on('vault', (vault) => {
    reminders.setVault({
      vaultId: vault.id,
      label: board.nameOf(vault),
      nextCheckInDue: deadlines.dueOf(vault),
    })
    events.emit('vault', vault)
    board.listed()
    void board.rememberKeyPresence(vault.id)
    void facts.refresh(vault.id, false)
    notices.warnIfCreditsLow(vault)
  })
  // An account with no vault: the list was read, there is just nothing in it.
  watcher.on('listed', () => board.listed())
  watcher.on('vault-removed', (vaultId) => {
    reminders.removeVault(vaultId)
    board.scheduleEmit()
  })
  watcher.on('poll-failed', (failure) => {
    // Nothing connected yet: the first-run screen says so; no error to show.
    if (!w.connected() || failure.vaultId !== null) return
    board.failed({
      code: failure.code,
      message: failure.userMessage,
      ...(failure.detail !== undefined ? { detail: failure.detail } : {}),
    })
  })
  watcher.on('state-change', (change) => {
    events.emit('vault-state', change)
    notices.stateChanged(change)
  })
  watcher.on('alarm', (alarm) => {
    events.emit('alarm', alarm)
    notices.notice(releasingNotice(board.labelOf(alarm.vaultId), alarm))
  })
  watcher.on('claim-alarm', (alarm) => {
    events.emit('claim-alarm', alarm)
    // "Thu, 26 Nov 2026": the day is what matters; the service's page and e-mail give the time.
    notices.notice(claimNotice(board.labelOf(alarm.vaultId), alarm))
  })
  reminders.on('due', (due) => {
    events.emit('reminder', due)
    notices.notice(reminderNotice(due, board.labelOf(due.vaultId)))
  })
  queue.on('manifest-problem', ({ vaultId, message }) =>
    notices.notice(manifestProblemNotice(board.labelOf(vaultId), vaultId, message)),
  )
  queue.on('item', (item) => {
    events.emit('upload-item', item)
    // One read of the vault for its new asset count and balance once uploads land.
    if (item.state === 'done') w.refreshSoon(item.vaultId)
  })
}
