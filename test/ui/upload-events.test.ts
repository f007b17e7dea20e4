// Upload events reach the window in batches (upload-event-batch.ts) and the renderer applies each batch
// in one store update (uploads-store.ts): a folder of thousands of files must not cost one IPC message
// and one copy of the whole list per change.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { UploadEventBatch } from '../../src/main/core/ipc/upload-event-batch'
import { type UploadsSnapshot, withItems, withProgress } from '../../src/renderer/stores/upload-batches'
import type { UploadItemView, UploadProgressView } from '../../src/shared/ipc/vault-types'

const item = (n: number, state: UploadItemView['state']): UploadItemView => ({
  id: `item-${n}`,
  batchId: 'batch-1',
  vaultId: 'vault-1',
  relativePath: `Photos/${n}.jpg`,
  state,
  sentBytes: 0,
  createdAt: '2026-11-23T10:00:00.000Z',
  updatedAt: '2026-11-23T10:00:00.000Z',
})
const progress = (n: number, sent: number): UploadProgressView => ({
  itemId: `item-${n}`,
  vaultId: 'vault-1',
  sentBytes: sent,
  totalBytes: 100,
  bytesPerSecond: 10,
  etaSeconds: 1,
})

afterEach(() => {
  vi.useRealTimers()
})

describe('UploadEventBatch', () => {
  it('sends the latest state of each changed item once per interval, not one message per change', () => {
    vi.useFakeTimers()
    const sent: { items: UploadItemView[][]; progress: UploadProgressView[][]; order: string[] } = {
      items: [],
      progress: [],
      order: [],
    }
    const batch = new UploadEventBatch(
      {
        items: (b) => {
          sent.items.push(b)
          sent.order.push('items')
        },
        progress: (b) => {
          sent.progress.push(b)
          sent.order.push('progress')
        },
      },
      100,
    )
    for (let n = 0; n < 2000; n++) {
      for (const state of ['queued', 'checking', 'uploading'] as const) batch.item(item(n, state))
      batch.progress(progress(n, 50))
    }
    batch.item(item(7, 'done'))
    expect(sent.items).toHaveLength(0)
    vi.advanceTimersByTime(100)
    expect(sent.items).toHaveLength(1)
    expect(sent.items[0]).toHaveLength(2000)
    expect(sent.items[0]!.find((i) => i.id === 'item-7')!.state).toBe('done')
    expect(sent.items[0]!.find((i) => i.id === 'item-8')!.state).toBe('uploading')
    // A finished item's earlier progress is dropped, and progress goes first so the final state wins.
    expect(sent.progress[0]).toHaveLength(1999)
    expect(sent.progress[0]!.some((p) => p.itemId === 'item-7')).toBe(false)
    expect(sent.order).toEqual(['progress', 'items'])
    vi.advanceTimersByTime(1000)
    expect(sent.items).toHaveLength(1)
    batch.item(item(1, 'done'))
    batch.flush()
    expect(sent.items).toHaveLength(2)
    batch.close()
  })
})

describe('the uploads store', () => {
  it('applies a batch of 20,000 items in one pass, and a finished item loses its progress', () => {
    let state: UploadsSnapshot = { items: {}, progress: {} }
    state = withItems(
      state,
      Array.from({ length: 20_000 }, (_, n) => item(n, 'uploading')),
    )
    expect(Object.keys(state.items)).toHaveLength(20_000)
    state = { ...state, ...withProgress(state, [progress(3, 40), progress(4, 60)]) }
    expect(state.progress['item-4']!.sentBytes).toBe(60)
    const before = state
    state = withItems(state, [item(3, 'done')])
    expect(state.items['item-3']!.state).toBe('done')
    expect(state.progress['item-3']).toBeUndefined()
    expect(state.progress['item-4']).toBeDefined()
    // The earlier state is not changed in place (the store's subscribers compare by reference).
    expect(before.items['item-3']!.state).toBe('uploading')
    expect(before.progress['item-3']).toBeDefined()
  })
})
