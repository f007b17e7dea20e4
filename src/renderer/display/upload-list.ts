// What the upload list shows, worked out in one pass over the queue: counts per state, per batch and
// per bundle, and the rows (a header per batch once there are several). Pure, so a queue of 20,000
// items is tested without a window.
import type { UploadItemView, UploadState } from '../../shared/ipc/vault-types'
import { text } from '../text'

export const STATE_TEXT: Record<UploadState, string> = text.uploadList.state

/** Running work first, then what ended, as the summary reads. */
const SUMMARY_ORDER: UploadState[] = [
  'uploading',
  'checking',
  'queued',
  'done',
  'skipped',
  'failed',
  'cancelled',
]

export interface UploadCounts {
  files: number
  byState: Map<UploadState, number>
  /** Bundles of small files: each travels (and is charged) as one upload. */
  bundles: Set<string>
  credits: number
}

export interface BatchGroup extends UploadCounts {
  batchId: string
  /** The folder the batch came from when all its files share one, else its only file, else null. */
  folder: string | null
  createdAt: string
  items: UploadItemView[]
}

export type UploadRow = { kind: 'batch'; group: BatchGroup } | { kind: 'item'; item: UploadItemView }

export interface UploadListView {
  total: UploadCounts
  batches: BatchGroup[]
  rows: UploadRow[]
  /** Files per bundle, for "in a bundle with N other files". */
  bundleSize: Map<string, number>
}

const emptyCounts = (): UploadCounts => ({ files: 0, byState: new Map(), bundles: new Set(), credits: 0 })

function add(counts: UploadCounts, item: UploadItemView): void {
  counts.files++
  counts.byState.set(item.state, (counts.byState.get(item.state) ?? 0) + 1)
  if (item.bundleId) counts.bundles.add(item.bundleId)
  counts.credits += item.creditsConsumed ?? 0
}

const topFolder = (relativePath: string) => {
  const slash = relativePath.indexOf('/')
  return slash > 0 ? relativePath.slice(0, slash) : null
}

/** The items of one vault, oldest batch first, each batch's files in the order they were queued. */
export function uploadListView(items: Record<string, UploadItemView>, vaultId: string): UploadListView {
  const total = emptyCounts()
  const groups = new Map<string, BatchGroup>()
  const bundleSize = new Map<string, number>()
  for (const item of Object.values(items)) {
    if (item.vaultId !== vaultId) continue
    add(total, item)
    if (item.bundleId) bundleSize.set(item.bundleId, (bundleSize.get(item.bundleId) ?? 0) + 1)
    let group = groups.get(item.batchId)
    if (!group) {
      group = {
        ...emptyCounts(),
        batchId: item.batchId,
        folder: topFolder(item.relativePath) ?? item.relativePath,
        createdAt: item.createdAt,
        items: [],
      }
      groups.set(item.batchId, group)
    } else if (group.folder !== null && topFolder(item.relativePath) !== group.folder) {
      group.folder = null
    }
    add(group, item)
    group.items.push(item)
    if (item.createdAt < group.createdAt) group.createdAt = item.createdAt
  }
  // ISO times compare as strings; the store keeps arrival order, so these sorts find little to move.
  const byTime = (a: { createdAt: string }, b: { createdAt: string }) =>
    a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0
  const batches = [...groups.values()].sort(byTime)
  const rows: UploadRow[] = []
  for (const group of batches) {
    group.items.sort(byTime)
    if (batches.length > 1) rows.push({ kind: 'batch', group })
    for (const item of group.items) rows.push({ kind: 'item', item })
  }
  return { total, batches, rows, bundleSize }
}

/** "1,500 stored · 500 waiting · 2 failed". */
export function stateCountsText(counts: UploadCounts): string {
  return SUMMARY_ORDER.filter((state) => counts.byState.get(state))
    .map((state) => text.uploadList.stateCount[state](counts.byState.get(state) ?? 0))
    .join(' · ')
}

/** "2,000 files (1 bundle of small files)". */
export function filesText(counts: UploadCounts): string {
  return text.uploadList.files(counts.files, counts.bundles.size)
}

/** Failed or cancelled, and everything that ended (what the two clear buttons would remove). */
export function endedCounts(counts: UploadCounts): { failures: number; finished: number } {
  const n = (state: UploadState) => counts.byState.get(state) ?? 0
  const failures = n('failed') + n('cancelled')
  return { failures, finished: failures + n('done') + n('skipped') }
}
