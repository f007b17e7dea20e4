// "Rotate the vault key": after a guardian is removed (or whenever the owner wants), old kits must stop
// opening anything. Re-splitting the same key cannot do that (two old kits still rebuild it), so:
//
//   1. a new key is made and stored as the vault's *next* key (vault-key-store.ts) before any file is
//      encrypted under it; the old key stays the vault's key;
//   2. every blob is re-encrypted under the new key and uploaded as a new asset (blob-reencryption.ts),
//      one after the other in the order the service holds them (so their dates keep their order); each
//      is recorded the moment the service answers (key-rotation-store.ts), so a crash, a restart or a
//      pause continues where it stopped; blobs uploaded meanwhile under the old key are found by
//      listing again and re-encrypted too;
//   3. only when every blob is re-encrypted does the new key become the vault's key; the guardians'
//      kits are made of it (a new split) and the owner is asked to save the new owner kit;
//   4. every new copy is read back whole from the service and authenticated under the new key;
//   5. the rotation waits ('awaiting-owner-kit') until the owner confirms the saved new owner kit;
//   6. only then are the old blobs deleted, where the service can delete. On a permanent store
//      (Arweave) the old copies stay readable with the old kits for ever, and the status says so.
//
// Until step 3 nothing the heirs can recover changes: a half-done rotation loses nothing.
//
// Why the old blobs wait for the owner kit (steps 5-6), the lesser of two risks: between the switch
// and the confirmation the new key exists only on this computer (the new guardian kits are made here
// and not handed over yet, the new owner kit not saved). Deleting the old blobs at once would make a
// dead disk in that window lose every file for the heirs and the owner alike, silently. Keeping them
// means the old split still opens those old copies: the removed guardian together with as many other
// old kits as the old preset needs minus one (or the old owner kit) can rebuild the old key and read
// the files as they were at the switch (not later ones, which exist only under the new key), and only
// with the blobs in hand (after a release, or from the service's disk). That is exactly the exposure
// that existed before the rotation began, for as long as the owner takes to save one kit, and the
// window says so and asks for the kit until it is confirmed. A loss cannot be undone; this can be
// ended by one confirmation.

import { nodeCipher } from '../../../node-cipher/cipher-choice'
import { type VaultApiClient, VaultApiError } from '../../../service-client'
import { isMissingExtension } from '../../../service-client/errors'
import { creditsToDollars, type UploadedAsset, uploadCostCredits } from '../../../shared/api'
import { AppError } from '../../../shared/app-error'
import type {
  BlobStorageInfo,
  KeyRotationEstimate,
  KeyRotationStatus,
} from '../../../shared/ipc/key-rotation'
import { type CipherImplementation, FileCipherError, vaultFingerprint } from '../../../vault-format'
import type { VaultKeyStore } from '../storage/vault-key-store'
import type { UploadIndex } from '../uploads/upload-index'
import {
  type BlobKeys,
  keyOfBlob,
  type ListedAsset,
  reencryptBlob,
  verifyReencrypted,
} from './blob-reencryption'
import type { KeyRotationStore, RotationBlob, RotationRecord } from './key-rotation-store'

export interface KeyRotationDeps {
  store: KeyRotationStore
  vaultKeys: VaultKeyStore
  /** The API client of a connection (undefined: the active one). */
  client: (connectionId?: string) => Promise<VaultApiClient>
  activeConnectionId: () => string | undefined
  /** Whether the store holding vault keys outlives the app (a rotation needs it to resume). */
  durableKeys: () => boolean
  /** The local index of uploaded files: its entries follow their blobs to the new asset ids. */
  index: () => UploadIndex
  /** Makes the guardians' kits of the new key (a new split) once it is the vault's key; how many. */
  remakeKits: (vaultId: string, key: Uint8Array) => Promise<number>
  /**
   * Whether the owner confirmed a saved owner kit of the key with this fingerprint (the "I have saved
   * it" check, or the kit typed in whole). The old blobs are deleted only once this holds for the new key.
   */
  ownerKitSaved: (vaultId: string, fingerprint: string) => boolean
  /**
   * Resolves once uploads running now have ended: one that read the old key just before the switch
   * lands under it, and must be there when the vault is listed for the last time.
   */
  uploadsSettled?: () => Promise<void>
  /** Told of every change (phases at once, progress at most every `progressIntervalMs`). */
  changed?: (status: KeyRotationStatus) => void
  cipher?: CipherImplementation
  progressIntervalMs?: number
  now?: () => number
}

interface Run {
  controller: AbortController
  done: Promise<void>
  /** Bytes of the blob being re-encrypted now. */
  inFlight: number
  rate: { at: number; bytes: number; perSecond: number }
}

const ROTATION_BUSY = 'A key rotation is already running for this vault.'
/** Tries per blob when the connection or the service fails in passing (then the rotation pauses). */
const MOVE_ATTEMPTS = 3
/** Rounds of moving again the copies that did not read back, before the rotation stops and says so. */
const VERIFY_ROUNDS = 3

/** A failure that may pass: the network, a timeout, the service's own error or a 503. */
function isPassing(error: unknown): boolean {
  if (!(error instanceof VaultApiError)) return false
  return error.code === 'NETWORK_ERROR' || error.code === 'TIMEOUT' || error.status >= 500
}

function problemOf(error: unknown): string {
  if (error instanceof AppError) return error.userMessage
  return `The rotation stopped: ${error instanceof Error ? error.message : String(error)}. Resume it to continue where it stopped.`
}

export class KeyRotation {
  readonly #deps: KeyRotationDeps
  readonly #runs = new Map<string, Run>()
  /** Chosen at the first rotation, so an app that only waits never loads the native module. */
  #cipher: CipherImplementation | undefined
  readonly #now: () => number
  readonly #lastEmit = new Map<string, number>()

  constructor(deps: KeyRotationDeps) {
    this.#deps = deps
    this.#cipher = deps.cipher
    this.#now = deps.now ?? Date.now
  }

  // ---- what the window asks ----

  /** What a rotation of this vault costs now, and whether the balance covers it. */
  async estimate(vaultId: string): Promise<KeyRotationEstimate> {
    const client = await this.#deps.client()
    const [assets, vault, service] = await Promise.all([
      client.listAllAssets(vaultId),
      client.getVault(vaultId),
      this.#serviceStorage(client),
    ])
    const encryptedBytes = assets.reduce((sum, a) => sum + a.sizeBytes, 0)
    const credits = assets.reduce((sum, a) => sum + uploadCostCredits(a.sizeBytes), 0)
    const record = this.#deps.store.rotation(vaultId)
    return {
      vaultId,
      files: assets.length,
      encryptedBytes,
      credits,
      balance: vault.creditsBalance,
      shortBy: Math.max(0, credits - vault.creditsBalance),
      storage: service.storage,
      canDelete: service.canDelete,
      underWay: record !== undefined && record.phase !== 'done',
    }
  }

  /**
   * Starts a rotation at the cost the owner was shown (`credits`); refuses, before anything is made or
   * sent, when the cost changed, the balance is short, the key is not here or cannot last.
   */
  async start(vaultId: string, credits: number): Promise<KeyRotationStatus> {
    if (this.#runs.has(vaultId)) throw new AppError({ code: 'ROTATION_RUNNING', userMessage: ROTATION_BUSY })
    const existing = this.#deps.store.rotation(vaultId)
    if (existing && existing.phase !== 'done') {
      throw new AppError({
        code: 'ROTATION_UNDER_WAY',
        userMessage:
          'A key rotation of this vault is under way already. Resume it (it continues where it stopped) or abandon it first.',
      })
    }
    const oldKey = await this.#deps.vaultKeys.get(vaultId)
    if (!oldKey) {
      throw new AppError({
        code: 'NO_VAULT_KEY',
        userMessage:
          'This device does not hold the vault key, so it cannot re-encrypt the files. Import the owner kit here first, or rotate from the computer that holds the key.',
      })
    }
    if (!this.#deps.durableKeys()) {
      throw new AppError({
        code: 'ROTATION_NEEDS_KEYCHAIN',
        userMessage:
          'This computer keeps vault keys only while the app runs (no keychain). A rotation must keep its new key across a restart until every file is re-encrypted, so it needs the keychain: set up the system keychain (Secret Service on Linux), then rotate. Nothing was changed.',
      })
    }
    const client = await this.#deps.client()
    const vault = await client.getVault(vaultId)
    if (vault.state !== 'active') {
      throw new AppError({
        code: 'VAULT_NOT_ACTIVE',
        userMessage: `This vault is ${vault.state}; its key can be rotated only while it is active. Nothing was changed.`,
      })
    }
    const estimate = await this.estimate(vaultId)
    if (estimate.credits !== credits) {
      throw new AppError({
        code: 'ROTATION_COST_CHANGED',
        userMessage: `The cost changed since it was shown (${estimate.files} files now, ${estimate.credits} credits instead of ${credits}). Look at the new cost and start again; nothing was changed.`,
      })
    }
    if (estimate.shortBy > 0) {
      throw new AppError({
        code: 'INSUFFICIENT_CREDITS',
        userMessage: `Re-encrypting the ${estimate.files} files costs ${estimate.credits} credits (${creditsToDollars(estimate.credits)}) and the balance is ${estimate.balance}: ${estimate.shortBy} credits short. Add credits, then rotate; nothing was changed or charged.`,
      })
    }
    const assets = await client.listAllAssets(vaultId)
    const newKey = await this.#deps.vaultKeys.makeNextKey(vaultId)
    const service = await this.#serviceStorage(client)
    this.#deps.store.begin(
      {
        vaultId,
        connectionId: this.#deps.activeConnectionId() ?? null,
        startedAt: new Date(this.#now()).toISOString(),
        estimatedCredits: credits,
        oldFingerprint: vaultFingerprint(oldKey),
        newFingerprint: vaultFingerprint(newKey),
        storePermanent: service.storage ? service.storage.permanent : null,
      },
      assets.map((a) => ({ assetId: a.id, sizeBytes: a.sizeBytes })),
    )
    this.#launch(vaultId)
    return this.status(vaultId)
  }

  /** Continues a paused or interrupted rotation where it stopped. */
  resume(vaultId: string): KeyRotationStatus {
    const record = this.#deps.store.rotation(vaultId)
    if (!record || record.phase === 'done') {
      throw new AppError({
        code: 'NO_ROTATION',
        userMessage: 'There is no key rotation of this vault to resume.',
      })
    }
    if (!this.#runs.has(vaultId)) this.#launch(vaultId)
    return this.status(vaultId)
  }

  /**
   * Told when the owner confirmed an owner kit: a rotation waiting for the new one goes on to delete
   * the old blobs (a rotation not waiting, or a kit of another key, changes nothing).
   */
  ownerKitConfirmed(vaultId: string): void {
    const record = this.#deps.store.rotation(vaultId)
    if (record?.phase !== 'awaiting-owner-kit' || this.#runs.has(vaultId)) return
    if (!this.#deps.ownerKitSaved(vaultId, record.newFingerprint)) return
    this.#launch(vaultId)
  }

  /** Stops after the blob in flight is abandoned (the service discards it, uncharged); resume later. */
  async pause(vaultId: string): Promise<KeyRotationStatus> {
    const run = this.#runs.get(vaultId)
    if (run) {
      run.controller.abort()
      await run.done
    }
    return this.status(vaultId)
  }

  /**
   * Gives up a rotation before its switch: the blobs already made under the new key are deleted and the
   * new key forgotten; the vault stays as it was, under its old key. After the switch there is no way
   * back (the old key is the one being retired), so it is refused.
   */
  async abandon(vaultId: string): Promise<KeyRotationStatus> {
    const record = this.#deps.store.rotation(vaultId)
    if (!record || record.phase === 'done') return this.status(vaultId)
    if (record.phase !== 're-encrypting') {
      throw new AppError({
        code: 'ROTATION_SWITCHED',
        userMessage:
          'The new key is already the vault key and the kits are made of it; the rotation can only be finished. Resume it.',
      })
    }
    await this.pause(vaultId)
    const client = await this.#deps.client(record.connectionId ?? undefined)
    const index = this.#deps.index()
    for (const blob of this.#deps.store.blobs(vaultId)) {
      if (!blob.newAssetId) continue
      await this.#deleteAsset(client, vaultId, blob.newAssetId)
      // The local index points back at the old blob.
      this.#remap(index, vaultId, blob.newAssetId, blob.oldAssetId)
    }
    await this.#deps.vaultKeys.dropNextKey(vaultId)
    this.#deps.store.forget(vaultId)
    const status = this.status(vaultId)
    this.#deps.changed?.(status)
    return status
  }

  status(vaultId: string): KeyRotationStatus {
    const record = this.#deps.store.rotation(vaultId)
    const run = this.#runs.get(vaultId)
    if (!record) {
      return {
        vaultId,
        phase: 'none',
        running: false,
        startedAt: null,
        finishedAt: null,
        files: { total: 0, reencrypted: 0, oldDeleted: 0, unreadable: 0 },
        bytes: { total: 0, done: 0 },
        bytesPerSecond: 0,
        estimatedCredits: 0,
        creditsConsumed: 0,
        storage: null,
        oldCopiesKept: 0,
        problem: this.#deps.store.problem ?? null,
        kitsMade: 0,
        oldCopiesLeft: 0,
      }
    }
    const blobs = this.#deps.store.blobs(vaultId)
    const movable = blobs.filter((b) => !b.unreadable)
    const done = movable.filter((b) => b.newAssetId)
    return {
      vaultId,
      phase: record.phase,
      running: run !== undefined,
      startedAt: record.startedAt,
      finishedAt: record.finishedAt,
      files: {
        total: blobs.length,
        reencrypted: done.length,
        oldDeleted: blobs.filter((b) => b.oldDeleted).length,
        unreadable: blobs.length - movable.length,
      },
      bytes: {
        total: movable.reduce((sum, b) => sum + b.sizeBytes, 0),
        done: done.reduce((sum, b) => sum + b.sizeBytes, 0) + (run?.inFlight ?? 0),
      },
      bytesPerSecond: Math.round(run?.rate.perSecond ?? 0),
      estimatedCredits: record.estimatedCredits,
      creditsConsumed: blobs.reduce((sum, b) => sum + (b.creditsConsumed ?? 0), 0),
      storage:
        record.storePermanent === null
          ? null
          : { kind: record.storePermanent ? 'arweave' : 'folder', permanent: record.storePermanent },
      oldCopiesKept:
        blobs.filter((b) => b.oldDeleted && b.contentRemoved === false).length +
        (record.phase === 'done' ? blobs.filter((b) => b.newAssetId && !b.oldDeleted).length : 0),
      problem: record.problem,
      kitsMade: record.kitsMade ?? 0,
      oldCopiesLeft: record.phase === 'done' ? 0 : blobs.filter((b) => b.newAssetId && !b.oldDeleted).length,
    }
  }

  /** Waits for the vault's running rotation (tests, benchmarks). */
  async idle(vaultId: string): Promise<void> {
    await this.#runs.get(vaultId)?.done
  }

  /** At start: rotations a restart interrupted continue by themselves. */
  resumeUnfinished(): void {
    for (const record of this.#deps.store.unfinished()) {
      if (!this.#runs.has(record.vaultId)) this.#launch(record.vaultId)
    }
  }

  /** Stops every run (each resumes at the next start) and closes the store. */
  async close(): Promise<void> {
    const runs = [...this.#runs.values()]
    for (const run of runs) run.controller.abort()
    await Promise.all(runs.map((r) => r.done))
    this.#deps.store.close()
  }

  // ---- the run ----

  #launch(vaultId: string): void {
    const run: Run = {
      controller: new AbortController(),
      done: Promise.resolve(),
      inFlight: 0,
      rate: { at: this.#now(), bytes: 0, perSecond: 0 },
    }
    this.#runs.set(vaultId, run)
    this.#deps.store.setProblem(vaultId, null)
    run.done = this.#run(vaultId, run)
      .catch((error: unknown) => {
        if (run.controller.signal.aborted) return
        this.#deps.store.setProblem(vaultId, problemOf(error))
      })
      .finally(() => {
        this.#runs.delete(vaultId)
        this.#emit(vaultId, true)
      })
    this.#emit(vaultId, true)
  }

  async #run(vaultId: string, run: Run): Promise<void> {
    const { store, vaultKeys } = this.#deps
    const record = store.rotation(vaultId)
    if (!record) return
    const client = await this.#deps.client(record.connectionId ?? undefined)
    this.#cipher ??= nodeCipher(false)
    const keys: BlobKeys = { vaultId, cipher: this.#cipher }
    const signal = run.controller.signal

    if (record.phase === 're-encrypting') {
      if (await vaultKeys.switchUnfinished(vaultId)) {
        // The switch began and the app stopped before it was recorded: finish it.
        await vaultKeys.switchToNextKey(vaultId)
        store.setPhase(vaultId, 'switched')
      } else if (
        vaultFingerprint((await vaultKeys.get(vaultId)) ?? new Uint8Array(32)) === record.newFingerprint
      ) {
        store.setPhase(vaultId, 'switched')
      } else {
        const oldKey = await vaultKeys.get(vaultId)
        const newKey = await vaultKeys.nextKey(vaultId)
        if (!oldKey) throw this.#keyGone(vaultId)
        if (!newKey || vaultFingerprint(newKey) !== record.newFingerprint) {
          throw new AppError({
            code: 'ROTATION_KEY_LOST',
            userMessage:
              "The new key of this rotation is no longer in this computer's key store, so the files already re-encrypted under it can be opened by nobody. Abandon the rotation (those copies are deleted; the vault stays under its old key) and start it again.",
          })
        }
        await this.#reencryptAll(client, vaultId, { old: oldKey, new: newKey }, keys, run, 'before-switch')
        await vaultKeys.switchToNextKey(vaultId)
        store.setPhase(vaultId, 'switched')
        this.#emit(vaultId, true)
      }
    }

    const switched = store.rotation(vaultId)
    if (switched?.phase !== 'switched' && switched?.phase !== 'awaiting-owner-kit') return
    const newKey = await vaultKeys.get(vaultId)
    if (!newKey || vaultFingerprint(newKey) !== switched.newFingerprint) throw this.#keyGone(vaultId)
    if (switched.phase === 'switched') {
      if (switched.kitsMade === null) {
        store.kitsMade(vaultId, await this.#deps.remakeKits(vaultId, newKey))
        this.#emit(vaultId, true)
      }
      // Uploads that read the old key just before the switch may have landed since: moved too.
      await this.#deps.uploadsSettled?.()
      const oldKey = await vaultKeys.retiredKey(vaultId)
      for (let round = 1; ; round++) {
        await this.#reencryptAll(client, vaultId, { old: oldKey, new: newKey }, keys, run, 'after-switch')
        if (await this.#verifyNew(client, vaultId, newKey, keys, signal)) break
        if (round >= VERIFY_ROUNDS) {
          throw new AppError({
            code: 'ROTATION_COPY_UNREADABLE',
            userMessage: `Copies re-encrypted under the new key did not read back whole from the service ${VERIFY_ROUNDS} times in a row, so the old copies were kept and nothing was deleted. Check the service (its disk, its operator), then resume.`,
          })
        }
      }
      store.setPhase(vaultId, 'awaiting-owner-kit')
      this.#emit(vaultId, true)
    }
    // The old blobs are the only copies a lost computer cannot take with it until the new owner kit is
    // saved: see the top of this file.
    if (!this.#deps.ownerKitSaved(vaultId, switched.newFingerprint)) return
    await this.#deleteOld(client, vaultId, signal)
    await vaultKeys.forgetRetiredKey(vaultId)
    store.setPhase(vaultId, 'done', new Date(this.#now()).toISOString())
  }

  /**
   * Reads back every new copy not yet checked. One that does not open whole under the new key is
   * deleted and its blob marked to be moved again; false when any was.
   */
  async #verifyNew(
    client: VaultApiClient,
    vaultId: string,
    newKey: Uint8Array,
    keys: BlobKeys,
    signal: AbortSignal,
  ): Promise<boolean> {
    const { store } = this.#deps
    let allGood = true
    for (const blob of store.blobs(vaultId)) {
      if (!blob.newAssetId || blob.newVerified || blob.oldDeleted) continue
      signal.throwIfAborted()
      try {
        await verifyReencrypted(
          client,
          blob.newAssetId,
          blob.newSizeBytes ?? blob.sizeBytes,
          newKey,
          keys,
          signal,
        )
        store.newVerified(vaultId, blob.oldAssetId)
      } catch (error) {
        if (!(error instanceof FileCipherError)) throw error
        allGood = false
        await this.#deleteAsset(client, vaultId, blob.newAssetId)
        this.#remap(this.#deps.index(), vaultId, blob.newAssetId, blob.oldAssetId)
        store.newCopyFailed(vaultId, blob.oldAssetId)
      }
      this.#emit(vaultId, false)
    }
    return allGood
  }

  #keyGone(vaultId: string): AppError {
    return new AppError({
      code: 'NO_VAULT_KEY',
      userMessage: `The key of vault ${vaultId} is no longer on this device, so the rotation cannot go on. Import the owner kit (the newest you saved), then resume.`,
    })
  }

  /**
   * Every blob not yet under the new key is moved, then the vault is listed again until no blob is left
   * that the rotation has not seen. Before the switch a stranger that opens under the new key is a
   * copy this rotation made whose answer was lost (deleted: the blob it copies is recorded already);
   * after the switch it is an ordinary upload under the vault's key.
   */
  async #reencryptAll(
    client: VaultApiClient,
    vaultId: string,
    candidates: { old: Uint8Array | null; new: Uint8Array },
    keys: BlobKeys,
    run: Run,
    when: 'before-switch' | 'after-switch',
  ): Promise<void> {
    const { store } = this.#deps
    const signal = run.controller.signal
    /** Blobs found under the new key after the switch: ordinary uploads, looked at once. */
    const underNewKey = new Set<string>()
    for (;;) {
      const listed = await client.listAllAssets(vaultId)
      const byId = new Map(listed.map((a) => [a.id, a as ListedAsset]))
      const blobs = store.blobs(vaultId)
      const known = new Set(
        blobs.flatMap((b) => (b.newAssetId ? [b.oldAssetId, b.newAssetId] : [b.oldAssetId])),
      )
      const strangers = listed.filter((a) => !known.has(a.id) && !underNewKey.has(a.id))
      for (const asset of strangers) {
        signal.throwIfAborted()
        const key = await keyOfBlob(client, asset, candidates, keys, signal)
        if (key === 'old') store.addBlobs(vaultId, [{ assetId: asset.id, sizeBytes: asset.sizeBytes }])
        else if (key === 'new') {
          if (when === 'before-switch') await this.#deleteAsset(client, vaultId, asset.id)
          else underNewKey.add(asset.id)
        } else {
          store.addBlobs(vaultId, [
            { assetId: asset.id, sizeBytes: asset.sizeBytes, unreadable: key.unreadable },
          ])
        }
      }
      const pending = store.blobs(vaultId).filter((b) => !b.newAssetId && !b.unreadable && !b.oldDeleted)
      if (pending.length === 0) return
      if (pending.length > 0 && !candidates.old) throw this.#keyGone(vaultId)
      for (const blob of pending) {
        signal.throwIfAborted()
        const asset = byId.get(blob.oldAssetId)
        if (!asset) {
          // The owner deleted it meanwhile: nothing left to move.
          store.oldDeleted(vaultId, blob.oldAssetId, true)
          continue
        }
        await this.#moveBlob(client, vaultId, asset, blob, candidates.old!, candidates.new, keys, run)
      }
    }
  }

  async #moveBlob(
    client: VaultApiClient,
    vaultId: string,
    asset: ListedAsset,
    blob: RotationBlob,
    oldKey: Uint8Array,
    newKey: Uint8Array,
    keys: BlobKeys,
    run: Run,
  ): Promise<void> {
    const { store } = this.#deps
    run.inFlight = 0
    const credits = uploadCostCredits(asset.sizeBytes)
    const attempt = async () =>
      reencryptBlob({
        client,
        asset,
        oldKey,
        newKey,
        keys,
        signal: run.controller.signal,
        onBytes: (n) => {
          run.inFlight = Math.min(asset.sizeBytes, run.inFlight + n)
          this.#sample(run, n)
          this.#emit(vaultId, false)
        },
        credits: { needed: credits, balance: (await client.getVault(vaultId)).creditsBalance },
      })
    try {
      let uploaded: UploadedAsset | undefined
      for (let tries = 1; !uploaded; tries++) {
        try {
          uploaded = await attempt()
        } catch (error) {
          // A dropped connection or a service hiccup: the blob is read again from the start, a few times.
          if (tries >= MOVE_ATTEMPTS || !isPassing(error) || run.controller.signal.aborted) throw error
          run.inFlight = 0
          await new Promise((resolve) => setTimeout(resolve, 1000 * tries))
        }
      }
      store.reencrypted(vaultId, blob.oldAssetId, uploaded)
      this.#remap(this.#deps.index(), vaultId, blob.oldAssetId, uploaded.id)
    } catch (error) {
      if (error instanceof FileCipherError) {
        store.markUnreadable(vaultId, blob.oldAssetId, error.message)
        return
      }
      if (error instanceof VaultApiError && error.status === 402) {
        throw new AppError({
          code: 'INSUFFICIENT_CREDITS',
          userMessage: `The balance ran out part-way: the next file needs ${credits} credits. Add credits, then resume; the files done so far are kept and not paid for again.`,
          cause: error,
        })
      }
      throw error
    } finally {
      run.inFlight = 0
      this.#emit(vaultId, true)
    }
  }

  async #deleteOld(client: VaultApiClient, vaultId: string, signal: AbortSignal): Promise<void> {
    const { store } = this.#deps
    for (const blob of store.blobs(vaultId)) {
      if (!blob.newAssetId || blob.oldDeleted) continue
      signal.throwIfAborted()
      try {
        const answer = await client.deleteAsset(vaultId, blob.oldAssetId, signal)
        store.oldDeleted(vaultId, blob.oldAssetId, answer.contentRemoved)
      } catch (error) {
        if (isMissingExtension(error)) {
          // A service that cannot delete: the old copies stay there; the status says how many.
          store.setProblem(
            vaultId,
            'This Vault Service cannot delete files, so the old copies stay on it, readable with the old kits. Ask its operator to delete them, or move the vault to a service that can.',
          )
          return
        }
        if (error instanceof VaultApiError && error.status === 404) {
          store.oldDeleted(vaultId, blob.oldAssetId, true)
          continue
        }
        throw error
      }
      this.#emit(vaultId, false)
    }
  }

  async #deleteAsset(client: VaultApiClient, vaultId: string, assetId: string): Promise<void> {
    try {
      await client.deleteAsset(vaultId, assetId)
    } catch (error) {
      if (error instanceof VaultApiError && error.status === 404 && !isMissingExtension(error)) return
      throw error
    }
  }

  #remap(index: UploadIndex, vaultId: string, from: string, to: string): void {
    const entries = index.filesOfAsset(vaultId, from)
    if (entries.length > 0) index.recordAll(entries.map((e) => ({ ...e, assetId: to })))
  }

  async #serviceStorage(
    client: VaultApiClient,
  ): Promise<{ storage: BlobStorageInfo | null; canDelete: boolean }> {
    try {
      const info = await client.getServiceInfo()
      return {
        storage: info.storage ?? null,
        canDelete: (info.extensions as readonly string[]).includes('asset-delete'),
      }
    } catch (error) {
      if (isMissingExtension(error)) return { storage: null, canDelete: false }
      throw error
    }
  }

  #sample(run: Run, n: number): void {
    const now = this.#now()
    run.rate.bytes += n
    const dt = (now - run.rate.at) / 1000
    if (dt >= 0.5) {
      const instant = run.rate.bytes / dt
      run.rate.perSecond = run.rate.perSecond === 0 ? instant : run.rate.perSecond * 0.75 + instant * 0.25
      run.rate = { at: now, bytes: 0, perSecond: run.rate.perSecond }
    }
  }

  #emit(vaultId: string, now: boolean): void {
    if (!this.#deps.changed) return
    const at = this.#now()
    const interval = this.#deps.progressIntervalMs ?? 250
    if (!now && at - (this.#lastEmit.get(vaultId) ?? 0) < interval) return
    this.#lastEmit.set(vaultId, at)
    this.#deps.changed(this.status(vaultId))
  }
}

export type { RotationRecord }
