// What to send and in what bundles, decided before anything is queued: each scanned file's verdict
// (a name any system can recreate, under the size limit, not unchanged, not already stored), the
// estimate the owner confirms (credits against the balance, the manifest included), and the queue
// items of a confirmed upload grouped by the same bundle plan, so the credits confirmed are those
// charged.
import { randomUUID } from 'node:crypto'
import type { VaultApiClient } from '../../../service-client'
import { creditsToDollars, LIMITS } from '../../../shared/api'
import type { UploadEstimateView } from '../../../shared/ipc/vault-types'
import { isolateName } from '../../../shared/untrusted-text'
import { checkIdentityPath, encryptedManifestLength, type FileIdentity } from '../../../vault-format'
import type { CreditBalances } from './credit-balances'
import { type ScannedFile, type SkippedEntry, scanForUpload } from './folder-scan'
import { type BundleLimits, planBundles, planCost } from './upload-bundle-plan'
import type { UploadCipher } from './upload-cipher'
import type { UploadIndex } from './upload-index'
import type { UploadItem } from './upload-records'
import { sealedPath, type VaultManifests } from './vault-manifests'

export interface UploadEstimate extends UploadEstimateView {
  /** Files already uploaded unchanged (same path, size, time): skipped unless forced, not counted above. */
  unchanged: string[]
  alreadyStored: Array<{ path: string; at: string }>
  skipped: SkippedEntry[]
}

type FileVerdict =
  | { kind: 'upload'; identity: FileIdentity; encryptedBytes: number }
  | { kind: 'bad-name'; problem: string }
  | { kind: 'too-large' }
  | { kind: 'unchanged' }
  /** The vault already holds these bytes (under this name or another): left out, not charged. */
  | { kind: 'already-stored'; at: string }

export interface PlannerInputs {
  cipher: UploadCipher
  index: UploadIndex
  manifests: VaultManifests
  balances: CreditBalances
  /** False when small files are not bundled. */
  bundleLimits: BundleLimits | false
  now: () => number
}

export class UploadPlanner {
  constructor(private readonly inputs: PlannerInputs) {}

  /** Whether a scanned file would be uploaded, and if not why (the estimate and enqueue agree). */
  async #verdict(vaultId: string, f: ScannedFile, force: boolean): Promise<FileVerdict> {
    const path = sealedPath(f.relativePath)
    const problem = checkIdentityPath(path)
    if (problem) return { kind: 'bad-name', problem }
    const identity = { path, size: f.size }
    const encryptedBytes = this.inputs.cipher.encryptedLength(identity)
    if (encryptedBytes > LIMITS.maxFileBytes) return { kind: 'too-large' }
    const earlier = force ? undefined : this.inputs.index.find(vaultId, f.path)
    if (earlier && earlier.size === f.size && earlier.mtimeMs === f.mtimeMs) return { kind: 'unchanged' }
    if (!force) {
      const copy = await this.inputs.index.sameContent(
        vaultId,
        f,
        this.inputs.manifests.carriedOfSize(vaultId, f.size),
      )
      if (copy) return { kind: 'already-stored', at: copy.at }
    }
    return { kind: 'upload', identity, encryptedBytes }
  }

  #plan(identities: readonly FileIdentity[]) {
    return planBundles(identities, this.inputs.bundleLimits)
  }

  /** What uploading these paths would cost, before anything is queued or sent. */
  async estimate(
    vaultId: string,
    paths: string[],
    /** The connection's client, asked for once the paths are scanned. */
    clientOf: () => Promise<VaultApiClient>,
    force: boolean,
    /** Credits kept for check-ins, which an upload may spend only by the owner's explicit choice. */
    reserve: { credits: number; months: number },
  ): Promise<UploadEstimate> {
    const { files, skipped } = await scanForUpload(paths)
    const client = await clientOf()
    const vault = await client.getVault(vaultId)
    this.inputs.balances.seen(vaultId, vault.creditsBalance)
    let plaintextBytes = 0
    const tooLarge: string[] = []
    const unchanged: string[] = []
    const alreadyStored: Array<{ path: string; at: string }> = []
    const identities: FileIdentity[] = []
    for (const f of files) {
      const verdict = await this.#verdict(vaultId, f, force)
      if (verdict.kind === 'bad-name') {
        skipped.push({
          path: f.path,
          reason: 'bad-name',
          detail: `${isolateName(f.relativePath)}: ${verdict.problem}`,
        })
      } else if (verdict.kind === 'too-large') {
        tooLarge.push(f.relativePath)
      } else if (verdict.kind === 'unchanged') {
        unchanged.push(f.relativePath)
      } else if (verdict.kind === 'already-stored') {
        alreadyStored.push({ path: f.relativePath, at: verdict.at })
      } else {
        identities.push(verdict.identity)
        plaintextBytes += f.size
      }
    }
    // The vault manifest goes with the upload: inside its last bundle, else as a small blob of its own.
    const manifestBytes =
      identities.length > 0
        ? encryptedManifestLength(
            this.inputs.manifests.paths(
              vaultId,
              identities.map((i) => i.path),
            ),
          )
        : 0
    const cost = planCost(
      identities,
      this.#plan(identities),
      {
        file: (f) => this.inputs.cipher.encryptedLength(f),
        bundle: (fs, manifest) => this.inputs.cipher.encryptedBundleLength(fs, manifest),
      },
      manifestBytes,
    )
    const credits = cost.credits
    return {
      vaultId,
      files: identities.length,
      plaintextBytes,
      encryptedBytes: cost.encryptedBytes,
      credits,
      dollars: creditsToDollars(credits),
      balanceCredits: vault.creditsBalance,
      enough: credits <= vault.creditsBalance,
      reserveCredits: reserve.credits,
      reserveMonths: reserve.months,
      eatsReserve: credits > 0 && reserve.credits > 0 && vault.creditsBalance - credits < reserve.credits,
      tooLarge,
      unchanged,
      alreadyStored,
      skipped,
      bundles: cost.bundles,
      bundledFiles: cost.bundledFiles,
      creditsWithoutBundles: cost.creditsWithoutBundles,
      cheapestUploadCredits: cost.cheapestUploadCredits,
    }
  }

  /**
   * The queue items for files and folders (recursively) to upload to a vault, small files grouped in
   * bundles; files whose bytes the vault holds are left out.
   */
  async plan(request: { vaultId: string; paths: string[]; force?: boolean; connectionId?: string }): Promise<{
    batchId: string
    items: UploadItem[]
    skipped: SkippedEntry[]
    alreadyStored: Array<{ path: string; at: string }>
  }> {
    const { files: scanned, skipped } = await scanForUpload(request.paths)
    const batchId = randomUUID()
    const stamp = new Date(this.inputs.now()).toISOString()
    const force = request.force ?? false
    // The same plan as the estimate's, over the same files: the confirmed credits are those charged.
    const planned: number[] = []
    const identities: FileIdentity[] = []
    // Files whose bytes the vault holds are not queued at all (the estimate left them out too).
    const alreadyStored: Array<{ path: string; at: string }> = []
    const files: ScannedFile[] = []
    const verdicts: FileVerdict[] = []
    for (const f of scanned) {
      const verdict = await this.#verdict(request.vaultId, f, force)
      if (verdict.kind === 'already-stored') alreadyStored.push({ path: f.relativePath, at: verdict.at })
      else {
        files.push(f)
        verdicts.push(verdict)
      }
    }
    for (const [i, verdict] of verdicts.entries()) {
      if (verdict.kind !== 'upload') continue
      planned.push(i)
      identities.push(verdict.identity)
    }
    const bundleOf: Array<string | undefined> = []
    const groups = this.#plan(identities).bundles
    // The batch's last bundle carries the vault manifest (as the estimate counted): it waits for the rest.
    const carrier = new Set(groups.at(-1)?.map((k) => planned[k]!))
    for (const group of groups) {
      const bundleId = randomUUID()
      for (const k of group) bundleOf[planned[k]!] = bundleId
    }
    const added = files.map(
      (f: ScannedFile, i): UploadItem => ({
        id: randomUUID(),
        batchId,
        ...(request.connectionId ? { connectionId: request.connectionId } : {}),
        vaultId: request.vaultId,
        path: f.path,
        relativePath: f.relativePath,
        force,
        state: 'queued',
        sizeBytes: f.size,
        mtimeMs: f.mtimeMs,
        sentBytes: 0,
        ...(bundleOf[i] ? { bundleId: bundleOf[i] } : {}),
        ...(carrier.has(i) ? { carriesManifest: true } : {}),
        createdAt: stamp,
        updatedAt: stamp,
      }),
    )
    return { batchId, items: added, skipped, alreadyStored }
  }
}
