// Which files of an upload travel together in a bundle (docs/FORMAT.md 3.9), and what that costs.
// Pure: the cost confirmation and the queue run the same plan over the same files, so the credits
// the owner confirms are the credits charged.
import { uploadCostCredits } from '../../../shared/api'
import {
  BUNDLE_FILE_THRESHOLD,
  BUNDLE_MAX_CONTENT_BYTES,
  BUNDLE_MAX_FILES,
  encryptedBundleLength,
  encryptedFileLength,
  type FileIdentity,
} from '../../../vault-format'

export interface BundleLimits {
  /** Files below this many bytes are bundled. */
  fileThreshold: number
  maxFiles: number
  maxContentBytes: number
}

export const DEFAULT_BUNDLE_LIMITS: BundleLimits = {
  fileThreshold: BUNDLE_FILE_THRESHOLD,
  maxFiles: BUNDLE_MAX_FILES,
  maxContentBytes: BUNDLE_MAX_CONTENT_BYTES,
}

export interface UploadPlan {
  /** Groups of indices into the planned files, in order; a group of one only when it is the plan's only bundle. */
  bundles: number[][]
  /** Indices of the files uploaded one by one. */
  singles: number[]
}

/**
 * Groups the small files, in the order given, into bundles within the limits; a path appears at
 * most once per bundle (a repeated one starts the next bundle). A group that would hold a single
 * file is no bundle: that file goes alone, as it would cost the same. But the vault manifest rides in
 * the last bundle, and without one it is a blob of its own that costs a credit more: so when no
 * bundle formed, one small file travels as a bundle of one and carries it.
 */
export function planBundles(
  files: readonly FileIdentity[],
  limits: BundleLimits | false = DEFAULT_BUNDLE_LIMITS,
): UploadPlan {
  const bundles: number[][] = []
  const singles: number[] = []
  let current: number[] = []
  let content = 0
  let paths = new Set<string>()
  let loneSmall: number | undefined
  const close = () => {
    if (current.length === 1) {
      singles.push(current[0]!)
      loneSmall ??= current[0]!
    } else if (current.length > 1) bundles.push(current)
    current = []
    content = 0
    paths = new Set()
  }
  for (const [i, file] of files.entries()) {
    if (!limits || file.size >= limits.fileThreshold) {
      singles.push(i)
      continue
    }
    if (
      current.length >= limits.maxFiles ||
      content + file.size > limits.maxContentBytes ||
      paths.has(file.path)
    ) {
      close()
    }
    current.push(i)
    content += file.size
    paths.add(file.path)
  }
  close()
  if (bundles.length === 0 && loneSmall !== undefined) {
    bundles.push([loneSmall])
    singles.splice(singles.indexOf(loneSmall), 1)
  }
  singles.sort((a, b) => a - b)
  return { bundles, singles }
}

export interface PlanCost {
  /** Encrypted bytes sent: each single file's blob plus each bundle's (and the manifest's). */
  encryptedBytes: number
  credits: number
  bundles: number
  bundledFiles: number
  /** The same files uploaded one by one. */
  creditsWithoutBundles: number
  /** The cheapest single upload (a file or a bundle): whether any of it fits a short balance. */
  cheapestUploadCredits: number
}

/**
 * What the plan costs. `manifestBytes`: the vault manifest written with the upload (0: none); it
 * rides inside the plan's last bundle, or without a bundle goes up as a blob of its own.
 */
export function planCost(
  files: readonly FileIdentity[],
  plan: UploadPlan,
  lengths: {
    file: (file: FileIdentity) => number
    bundle: (files: readonly FileIdentity[], manifestBytes: number) => number
  } = {
    file: encryptedFileLength,
    bundle: encryptedBundleLength,
  },
  manifestBytes = 0,
): PlanCost {
  let encryptedBytes = 0
  let credits = 0
  let creditsWithoutBundles = 0
  let cheapest = Number.POSITIVE_INFINITY
  for (const file of files) creditsWithoutBundles += uploadCostCredits(lengths.file(file))
  for (const i of plan.singles) {
    const length = lengths.file(files[i]!)
    encryptedBytes += length
    credits += uploadCostCredits(length)
    cheapest = Math.min(cheapest, uploadCostCredits(length))
  }
  let bundledFiles = 0
  for (const [g, group] of plan.bundles.entries()) {
    const last = g === plan.bundles.length - 1
    const length = lengths.bundle(
      group.map((i) => files[i]!),
      last ? manifestBytes : 0,
    )
    encryptedBytes += length
    credits += uploadCostCredits(length)
    cheapest = Math.min(cheapest, uploadCostCredits(length))
    bundledFiles += group.length
  }
  if (plan.bundles.length === 0 && manifestBytes > 0) {
    encryptedBytes += manifestBytes
    credits += uploadCostCredits(manifestBytes)
  }
  return {
    encryptedBytes,
    credits,
    bundles: plan.bundles.length,
    bundledFiles,
    creditsWithoutBundles,
    cheapestUploadCredits: Number.isFinite(cheapest) ? cheapest : 0,
  }
}

/**
 * Splits a whole amount over parts in proportion to their weights (largest remainder): the parts
 * add up to exactly `total`, so a bundle's credits shared over its files sum to what was charged.
 */
export function splitByWeight(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0)
  if (weights.length === 0) return []
  if (sum <= 0) return weights.map((_, i) => (i === 0 ? total : 0))
  const exact = weights.map((w) => (total * w) / sum)
  const shares = exact.map(Math.floor)
  let left = total - shares.reduce((a, b) => a + b, 0)
  const order = exact
    .map((x, i) => ({ i, rest: x - Math.floor(x) }))
    .sort((a, b) => b.rest - a.rest || a.i - b.i)
  for (const { i } of order) {
    if (left <= 0) break
    shares[i]!++
    left--
  }
  return shares
}

/** A file's weight in its bundle: its identity record and its bytes. */
export function bundleWeight(file: FileIdentity): number {
  return 10 + Buffer.byteLength(file.path) + file.size
}
