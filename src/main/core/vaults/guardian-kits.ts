// Guardian kits: the vault key split into shares (threshold and count from the vault's preset), one
// share per guardian, re-split with a new split id whenever a guardian is added or removed so old
// kits stop combining with new ones. The current split is kept in userData/guardian-kits/<vault>.json:
// who holds which share in the clear, the shares' words sealed with AES-256-GCM under a key derived
// from the vault key (a threshold of shares is as good as the key, so they never sit on disk in the
// clear; the sealing is the format library's, src/vault-format/kit-seal.ts). Kits are rendered on
// demand as printable HTML, which needs the vault key on this device.
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { type KitCheckRegistration, SSS_PRESET_SHAPE, type SssPreset } from '../../../shared/api'
import type { GuardianKitInfo } from '../../../shared/ipc/vault-types'
import {
  decodeShareWords,
  encodeShareWords,
  kitCheckCodeHash,
  kitCheckCodeOf,
  openKitWords,
  sealKitWords,
  splitVaultKey,
} from '../../../vault-format'
import { shippedRecoveryPageSha256 } from '../printable/recovery-page-digest'
import { readJsonFile, writeFileAtomic } from '../storage/json-file'

interface StoredSplit {
  version: 1
  vaultId: string
  splitId: string
  createdAt: string
  threshold: number
  shares: number
  assignments: Array<{ guardianId: string; guardianName: string; shareIndex: number }>
  /** The share words in assignment order, sealed by sealKitWords. */
  sealedShares: string
  /** Guardians the owner confirmed handing this split's kit to (a new split starts empty). */
  handedOver?: string[]
  /** The service took this split's check code hashes (extension kit-check); absent: not yet. */
  kitChecksRegistered?: boolean
}

export function kitFileName(guardianName: string, vaultLabel: string): string {
  const safe = `${vaultLabel} - guardian kit - ${guardianName}`
    .replace(/[^\p{L}\p{N} ._-]+/gu, '_')
    .slice(0, 120)
  return `${safe}.html`
}

export class GuardianKits {
  constructor(private readonly dir: string) {}

  #file(vaultId: string): string {
    return join(this.dir, `${encodeURIComponent(vaultId)}.json`)
  }

  async #load(vaultId: string): Promise<StoredSplit | null> {
    return readJsonFile<StoredSplit | null>(this.#file(vaultId), null)
  }

  async list(vaultId: string): Promise<GuardianKitInfo[]> {
    const split = await this.#load(vaultId)
    return split ? split.assignments.map((a) => info(split, a)) : []
  }

  /** A new split for the current guardians; the previous one is replaced. */
  async regenerate(
    vaultId: string,
    vaultKey: Uint8Array,
    preset: SssPreset,
    guardians: Array<{ id: string; name: string }>,
  ): Promise<GuardianKitInfo[]> {
    if (guardians.length === 0) {
      await rm(this.#file(vaultId), { force: true })
      return []
    }
    const shares = await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE[preset])
    const first = shares[0]!
    // Shares beyond the number of guardians are not kept: nobody holds them.
    const assigned = guardians.slice(0, shares.length)
    const split: StoredSplit = {
      version: 1,
      vaultId,
      splitId: first.splitId,
      createdAt: new Date().toISOString(),
      threshold: first.threshold,
      shares: first.shareCount,
      assignments: assigned.map((g, i) => ({
        guardianId: g.id,
        guardianName: g.name,
        shareIndex: shares[i]!.shareIndex,
      })),
      sealedShares: sealKitWords(
        vaultKey,
        vaultId,
        first.splitId,
        assigned.map((_, i) => encodeShareWords(shares[i]!)),
      ),
    }
    await writeFileAtomic(this.#file(vaultId), JSON.stringify(split, null, 2), 0o600)
    return split.assignments.map((a) => info(split, a))
  }

  /**
   * What the service is told of the current split for kit checks (FORMAT.md 5.5): per guardian the
   * hash of their kit's check code, never the words nor the code itself. Null without a split, or once
   * the service took this split's hashes.
   */
  async kitCheckRegistration(vaultId: string, vaultKey: Uint8Array): Promise<KitCheckRegistration | null> {
    const split = await this.#load(vaultId)
    if (!split || split.kitChecksRegistered) return null
    const words = openKitWords(vaultKey, vaultId, split.splitId, split.sealedShares)
    return {
      split: split.splitId,
      guardians: split.assignments.map((a, i) => ({
        guardianId: a.guardianId,
        codeHash: kitCheckCodeHash(kitCheckCodeOf(decodeShareWords(words[i]!)), vaultId),
      })),
    }
  }

  /** The service took the check code hashes of `splitId` (ignored when the split changed meanwhile). */
  async markKitChecksRegistered(vaultId: string, splitId: string): Promise<void> {
    const split = await this.#load(vaultId)
    if (split?.splitId !== splitId) return
    await writeFileAtomic(
      this.#file(vaultId),
      JSON.stringify({ ...split, kitChecksRegistered: true }, null, 2),
      0o600,
    )
  }

  /** Drops the vault's split (the vault was deleted). */
  async forget(vaultId: string): Promise<void> {
    await rm(this.#file(vaultId), { force: true })
  }

  /** Records that the owner gave (or did not give) this guardian the current split's kit. */
  async setHandedOver(vaultId: string, guardianId: string, handedOver: boolean): Promise<GuardianKitInfo[]> {
    const split = await this.#load(vaultId)
    if (!split?.assignments.some((a) => a.guardianId === guardianId)) {
      throw new Error(`no kit for guardian ${guardianId} in the current split of ${vaultId}`)
    }
    const others = (split.handedOver ?? []).filter((id) => id !== guardianId)
    const next: StoredSplit = { ...split, handedOver: handedOver ? [...others, guardianId] : others }
    await writeFileAtomic(this.#file(vaultId), JSON.stringify(next, null, 2), 0o600)
    return next.assignments.map((a) => info(next, a))
  }

  async render(
    vaultId: string,
    guardianId: string,
    vaultKey: Uint8Array,
    /** The vault's name as the owner knows it now, printed on the kit. */
    vaultName?: string,
  ): Promise<{ info: GuardianKitInfo; html: string } | null> {
    const split = await this.#load(vaultId)
    const index = split?.assignments.findIndex((a) => a.guardianId === guardianId) ?? -1
    if (!split || index < 0) return null
    const words = openKitWords(vaultKey, vaultId, split.splitId, split.sealedShares)
    const assignment = split.assignments[index]!
    // Loaded when a kit is printed: the QR code library is memory the rest of the app does not need.
    const { renderGuardianKitHtml } = await import('../printable/kit-pages')
    const html = renderGuardianKitHtml({
      guardianName: assignment.guardianName,
      share: decodeShareWords(words[index]!),
      createdAt: new Date(split.createdAt),
      ...(vaultName ? { vaultName } : {}),
      ...(await shippedRecoveryPageSha256().then((sha) => (sha ? { recoveryPageSha256: sha } : {}))),
    })
    return { info: info(split, assignment), html }
  }
}

function info(split: StoredSplit, a: StoredSplit['assignments'][number]): GuardianKitInfo {
  return {
    guardianId: a.guardianId,
    guardianName: a.guardianName,
    shareIndex: a.shareIndex,
    threshold: split.threshold,
    shares: split.shares,
    splitId: split.splitId,
    createdAt: split.createdAt,
    handedOver: split.handedOver?.includes(a.guardianId) ?? false,
  }
}
