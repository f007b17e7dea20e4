// Guardian kits: the vault key split into shares (threshold and count from the vault's preset), one
// share per guardian (kept as its recovery words), re-split with a new split id whenever a guardian is added or removed so old
// kits stop combining with new ones. The current split is kept in the secret store (a threshold of
// shares is as good as the key), and kits are rendered on demand as printable HTML.
import type { SssPreset } from '../../../shared/api'
import type { GuardianKitInfo } from '../../../shared/ipc/vault-types'
import { decodeShareWords, encodeShareWords, renderGuardianKitHtml, splitVaultKey } from '../crypto'
import type { SecretStore } from '../secret-store'

interface StoredSplit {
  vaultId: string
  splitId: string
  createdAt: string
  threshold: number
  shares: number
  assignments: Array<{ guardianId: string; guardianName: string; shareIndex: number; share: string }>
}

export function kitsAccount(vaultId: string): string {
  return `guardian-kits:${vaultId}`
}

export function kitFileName(guardianName: string, vaultLabel: string): string {
  const safe = `${vaultLabel} - guardian kit - ${guardianName}`
    .replace(/[^\p{L}\p{N} ._-]+/gu, '_')
    .slice(0, 120)
  return `${safe}.html`
}

export class GuardianKits {
  constructor(private readonly secrets: SecretStore) {}

  async #load(vaultId: string): Promise<StoredSplit | null> {
    const text = await this.secrets.get(kitsAccount(vaultId))
    return text ? (JSON.parse(text) as StoredSplit) : null
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
      await this.secrets.delete(kitsAccount(vaultId))
      return []
    }
    const shares = await splitVaultKey(vaultKey, vaultId, preset)
    const first = shares[0]!
    const split: StoredSplit = {
      vaultId,
      splitId: first.splitId,
      createdAt: new Date().toISOString(),
      threshold: first.threshold,
      shares: first.shareCount,
      // Shares beyond the number of guardians are not kept: nobody holds them.
      assignments: guardians.slice(0, shares.length).map((g, i) => ({
        guardianId: g.id,
        guardianName: g.name,
        shareIndex: shares[i]!.shareIndex,
        share: encodeShareWords(shares[i]!),
      })),
    }
    await this.secrets.set(kitsAccount(vaultId), JSON.stringify(split))
    return split.assignments.map((a) => info(split, a))
  }

  async render(vaultId: string, guardianId: string): Promise<{ info: GuardianKitInfo; html: string } | null> {
    const split = await this.#load(vaultId)
    const assignment = split?.assignments.find((a) => a.guardianId === guardianId)
    if (!split || !assignment) return null
    const html = renderGuardianKitHtml({
      guardianName: assignment.guardianName,
      share: decodeShareWords(assignment.share),
      createdAt: new Date(split.createdAt),
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
  }
}
