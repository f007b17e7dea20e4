// What the window sees of the active connection's vaults: each vault's view (the service's word, the
// device record, readiness facts, whether this device holds its key), the snapshot with when the
// list was last read or why it could not be, the tray, and telling the window — at once after an
// owner's action, batched (30 ms) after what the watcher and the facts report.
import type { VaultDetails } from '../../../service-client'
import { eventChannels } from '../../../shared/ipc/contract'
import type {
  KeyStorageInfo,
  LostVaultKey,
  TrayView,
  VaultsSnapshot,
  VaultView,
} from '../../../shared/ipc/vault-types'
import type { EventHub } from '../ipc/handler-table'
import type { VaultKeyStore } from '../storage/vault-key-store'
import type { DeviceRecords } from './device-records'
import type { ReadinessFacts } from './readiness-facts'
import { trayView, vaultLabel, vaultName, vaultView } from './vault-view'
import type { VaultWatcher } from './vault-watcher'

export interface VaultBoardDeps {
  watcher: VaultWatcher
  records: DeviceRecords
  vaultKeys: VaultKeyStore
  /** Made after the board (it tells the board when facts change). */
  facts: () => ReadinessFacts
  keyStorage: () => KeyStorageInfo
  /** Files this device knows are in the vault (the upload index). */
  fileCount: (vaultId: string) => number | null
  activeConnectionId: () => string | undefined
  window: EventHub
  /** The tray follows every snapshot the window gets. */
  tray: (view: TrayView) => void
  now: () => number
  /** How many days before a deadline the tray calls a check-in due soon. */
  dueSoonDays: () => number
}

export class VaultBoard {
  readonly #deps: VaultBoardDeps
  #fetchedAt: string | null = null
  #error: VaultsSnapshot['error'] = null
  readonly #keyOnDevice = new Map<string, boolean>()
  readonly #keyFingerprint = new Map<string, string | undefined>()
  readonly #keyLost = new Map<string, LostVaultKey>()
  #emitTimer: ReturnType<typeof setTimeout> | undefined
  #closed = false

  constructor(deps: VaultBoardDeps) {
    this.#deps = deps
  }

  view(vault: VaultDetails): VaultView {
    const facts = this.#deps.facts()
    return vaultView({
      vault,
      record: this.#deps.records.get(vault.id),
      facts: facts.of(vault.id),
      service: facts.service,
      keyOnDevice: this.#keyOnDevice.get(vault.id) ?? false,
      keyStorage: this.#deps.keyStorage(),
      keyLost: this.#keyLost.get(vault.id) ?? null,
      ownerKitConfirmed: this.ownerKitConfirmed(vault.id),
      fileCount: this.#deps.fileCount(vault.id),
    })
  }

  snapshot(): VaultsSnapshot {
    const vaults = this.#deps.watcher
      .snapshot()
      .map((v) => this.view(v))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    return {
      connectionId: this.#deps.activeConnectionId() ?? null,
      vaults,
      fetchedAt: this.#fetchedAt,
      error: this.#error,
    }
  }

  /** The tray: the worst state across the vaults and the next check-in, as the window labels them. */
  tray(snapshot: VaultsSnapshot = this.snapshot()): TrayView {
    return trayView(snapshot.vaults, this.#deps.now(), this.#deps.dueSoonDays())
  }

  /** The vault's name as the window shows it (the owner's name, else a short id). */
  labelOf(vaultId: string): string {
    const known = this.#deps.watcher.snapshot().find((v) => v.id === vaultId)
    return known ? this.nameOf(known) : (this.#deps.records.get(vaultId).name ?? vaultLabel(vaultId))
  }

  nameOf(vault: VaultDetails): string {
    return vaultName(vault, this.#deps.records.get(vault.id)) ?? vaultLabel(vault.id)
  }

  /** Whether the owner confirmed the saved owner kit of the key this device holds now. */
  ownerKitConfirmed(vaultId: string): boolean {
    const confirmed = this.#deps.records.get(vaultId).ownerKit
    return !!confirmed && confirmed.fingerprint === this.#keyFingerprint.get(vaultId)
  }

  /** The list was read (an account with no vault too): no error to show. */
  listed(): void {
    this.#fetchedAt = new Date(this.#deps.now()).toISOString()
    this.#error = null
    this.scheduleEmit()
  }

  failed(error: NonNullable<VaultsSnapshot['error']>): void {
    this.#error = error
    this.scheduleEmit()
  }

  /** Another connection: nothing of the old one's reading is shown. */
  cleared(): void {
    this.#fetchedAt = null
    this.#error = null
  }

  /** Whether this device holds the vault's key, and which; the window is told when that changed. */
  async rememberKeyPresence(vaultId: string): Promise<void> {
    const info = await this.#deps.vaultKeys.info(vaultId)
    if (
      this.#keyOnDevice.get(vaultId) !== info.present ||
      this.#keyFingerprint.get(vaultId) !== info.fingerprint ||
      this.#keyLost.get(vaultId)?.fingerprint !== info.lost?.fingerprint
    ) {
      this.#keyOnDevice.set(vaultId, info.present)
      this.#keyFingerprint.set(vaultId, info.fingerprint)
      if (info.lost) this.#keyLost.set(vaultId, info.lost)
      else this.#keyLost.delete(vaultId)
      this.scheduleEmit()
    }
  }

  forgetKey(vaultId: string): void {
    this.#keyOnDevice.delete(vaultId)
    this.#keyFingerprint.delete(vaultId)
    this.#keyLost.delete(vaultId)
  }

  scheduleEmit(): void {
    if (this.#emitTimer || this.#closed) return
    this.#emitTimer = setTimeout(() => {
      this.#emitTimer = undefined
      this.emitNow()
    }, 30)
  }

  emitNow(): void {
    this.#dropTimer()
    // The session closes its stores after the board: nothing may read them then.
    if (this.#closed) return
    const snapshot = this.snapshot()
    this.#deps.window.emit(eventChannels.vaultsChanged, snapshot)
    this.#deps.tray(this.tray(snapshot))
  }

  /** For good: drops a batched emit still waiting, and emits nothing more (the session is closing). */
  close(): void {
    this.#closed = true
    this.#dropTimer()
  }

  #dropTimer(): void {
    if (this.#emitTimer) clearTimeout(this.#emitTimer)
    this.#emitTimer = undefined
  }
}
