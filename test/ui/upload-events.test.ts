// Upload events reach the window in batches (upload-event-batch.ts) and the renderer applies each batch
// in one store update (uploads-store.ts): a folder of thousands of files must not cost one IPC message
// and one copy of the whole list per change.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { dispatch } from '../../src/main/core/ipc/handler-table'
import { UploadEventBatch } from '../../src/main/core/uploads/upload-event-batch'
import { createVaultApp, type VaultApp } from '../../src/main/core/vault-app'
import {
  filesText,
  stateCountsText,
  type UploadRow,
  uploadListView,
} from '../../src/renderer/display/upload-list'
import { type UploadsSnapshot, withItems, withProgress } from '../../src/renderer/stores/upload-batches'
import { type RunningService, startService } from '../../src/service'
import { eventChannels, invokeChannels } from '../../src/shared/ipc/contract'
import type { AppNotice, UploadItemView, UploadProgressView } from '../../src/shared/ipc/vault-types'
import { encodeOwnerKitWords, generateVaultKey } from '../../src/vault-format'
import { testSecretBox } from '../core/secret-box-fixture'

const item = (n: number, state: UploadItemView['state'], batchId = 'batch-1'): UploadItemView => ({
  id: `item-${n}`,
  batchId,
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

describe('the uploads store, applying batches', () => {
  it('copies the list once per batch: unchanged items keep their objects, progress leaves items alone', () => {
    const first = withItems(
      { items: {}, progress: {} },
      Array.from({ length: 20_000 }, (_, n) => item(n, 'queued')),
    )
    const changed = withItems(first, [item(5, 'checking'), item(6, 'checking')])
    expect(changed.items).not.toBe(first.items)
    // Items outside the batch are the same objects: nothing is copied per item.
    expect(changed.items['item-7']).toBe(first.items['item-7'])
    expect(changed.items['item-19999']).toBe(first.items['item-19999'])
    // No progress to drop: the progress map is not copied either.
    expect(changed.progress).toBe(first.progress)
    // A progress batch changes only the progress map, so the list built from `items` is not rebuilt.
    const moving = withProgress(changed, [progress(5, 10)])
    expect(Object.keys(moving)).toEqual(['progress'])
    expect(moving.progress).not.toBe(changed.progress)
  })
})

describe('the upload list', () => {
  const kinds = (rows: UploadRow[]) =>
    rows.map((r) => (r.kind === 'batch' ? `# ${r.group.folder}` : r.item.relativePath))

  it('counts per state, per batch and per bundle in one pass over 20,000 items', () => {
    const items: Record<string, UploadItemView> = {}
    for (let n = 0; n < 20_000; n++) {
      const state = n < 15_000 ? 'done' : n < 19_990 ? 'queued' : 'failed'
      items[`item-${n}`] = {
        ...item(n, state),
        bundleId: `bundle-${Math.floor(n / 4096)}`,
        ...(state === 'done' ? { creditsConsumed: n % 2 } : {}),
      }
    }
    items.other = { ...item(99_999, 'uploading'), id: 'other', vaultId: 'vault-2' }
    const view = uploadListView(items, 'vault-1')
    expect(filesText(view.total)).toBe('20,000 files (5 bundles of small files)')
    expect(stateCountsText(view.total)).toBe('4,990 waiting · 15,000 stored · 10 failed')
    expect(view.total.credits).toBe(7_500)
    expect(view.bundleSize.get('bundle-4')).toBe(20_000 - 4 * 4096)
    // One batch: no header line, every item a row.
    expect(view.batches).toHaveLength(1)
    expect(view.rows).toHaveLength(20_000)
    expect(view.rows.every((r) => r.kind === 'item')).toBe(true)
  })

  it('gives each batch a header once there are several, oldest first, even when their items interleave', () => {
    const at = (n: number, batchId: string, path: string, minute: number): UploadItemView => ({
      ...item(n, 'queued', batchId),
      relativePath: path,
      createdAt: `2026-11-23T10:${String(minute).padStart(2, '0')}:00.000Z`,
    })
    const items = Object.fromEntries(
      [
        at(1, 'later', 'letter.pdf', 5),
        at(2, 'first', 'Photos/a.jpg', 1),
        at(3, 'first', 'Photos/2024/b.jpg', 6),
        at(4, 'mixed', 'Taxes/c.pdf', 3),
        at(5, 'mixed', 'notes.txt', 4),
      ].map((i) => [i.id, i]),
    )
    const view = uploadListView(items, 'vault-1')
    expect(kinds(view.rows)).toEqual([
      '# Photos',
      'Photos/a.jpg',
      'Photos/2024/b.jpg',
      '# null',
      'Taxes/c.pdf',
      'notes.txt',
      '# letter.pdf',
      'letter.pdf',
    ])
    expect(view.batches.map((b) => filesText(b))).toEqual(['2 files', '2 files', '1 file'])
  })
})

// The events as the window receives them, from the real session against the real local service.
describe('upload events from the session', () => {
  let service: RunningService
  let backend: VaultApp
  const dirs: string[] = []
  const FILES = 40

  beforeAll(async () => {
    const serviceDir = await mkdtemp(join(tmpdir(), 'vault-events-service-'))
    const userDataDir = await mkdtemp(join(tmpdir(), 'vault-events-app-'))
    const filesDir = await mkdtemp(join(tmpdir(), 'vault-events-files-'))
    dirs.push(serviceDir, userDataDir, filesDir)
    service = await startService({ dataDir: serviceDir, port: 0 })
    backend = createVaultApp({
      userDataDir,
      mode: 'browser',
      version: '0',
      useKeychain: false,
      secretBox: testSecretBox(),
    })
  })
  afterAll(async () => {
    await backend?.close()
    await service?.close()
    for (const dir of dirs) await rm(dir, { recursive: true, force: true })
  })

  const ok = async <T>(key: keyof typeof invokeChannels, args?: unknown): Promise<T> => {
    const response = await dispatch(backend.handlers, invokeChannels[key].name, args)
    if (!response.ok) throw new Error(`${key}: ${response.error.message}`)
    return response.value as T
  }

  it('sends batches of items and progress, the files of a bundle done together, one notice per batch', async () => {
    const account = await service.admin.createAccount({ email: 'events@example.com' })
    const { vaultId } = await service.admin.createVault({ account: account.accountId, preset: 'standard' })
    await ok('connectService', { serviceUrl: service.url, apiKey: account.apiKey })
    await ok('importOwnerKit', {
      vaultId,
      words: encodeOwnerKitWords({ vaultKey: generateVaultKey(), vaultId }),
    })
    const folder = join(dirs[2]!, 'Letters')
    await mkdir(folder)
    for (let n = 0; n < FILES; n++)
      await writeFile(join(folder, `letter-${n}.txt`), `letter ${n}\n`.repeat(500))

    const messages: Array<[string, unknown]> = []
    backend.events.subscribe((channel, payload) => messages.push([channel, payload]))
    const { batchId } = await ok<{ batchId: string }>('queueUpload', { vaultId, paths: [folder] })
    await expect
      .poll(
        async () =>
          (await ok<UploadItemView[]>('listUploads')).filter(
            (i) => i.batchId === batchId && i.state === 'done',
          ).length,
        { timeout: 30_000 },
      )
      .toBe(FILES)
    await expect
      .poll(() => messages.some(([c]) => c === eventChannels.notice.name), { timeout: 5_000 })
      .toBe(true)

    const itemBatches = messages
      .filter(([c]) => c === eventChannels.uploadItems.name)
      .map(([, p]) => p as UploadItemView[])
    const progressBatches = messages
      .filter(([c]) => c === eventChannels.uploadProgress.name)
      .map(([, p]) => p as UploadProgressView[])
    expect(messages.every(([c]) => c !== 'uploads:item')).toBe(true)
    // Each message holds an item once, in its latest state.
    for (const batch of itemBatches) expect(new Set(batch.map((i) => i.id)).size).toBe(batch.length)
    // The bundle's files finish together and reach the window as one message, not 40.
    const doneTogether = itemBatches.find((b) => b.filter((i) => i.state === 'done').length === FILES)
    expect(doneTogether).toBeDefined()
    expect(new Set(doneTogether!.map((i) => i.bundleId)).size).toBe(1)
    // The last state the window saw of every file is the one the queue lists.
    const last = new Map<string, UploadItemView>()
    for (const batch of itemBatches) for (const i of batch) last.set(i.id, i)
    expect([...last.values()].filter((i) => i.state === 'done')).toHaveLength(FILES)
    // No progress for an item after the message that said it was done (a bar would fill again).
    const doneAt = messages.indexOf(messages.find(([, p]) => p === doneTogether)!)
    const laterProgress = messages.slice(doneAt + 1).filter(([c]) => c === eventChannels.uploadProgress.name)
    expect(laterProgress).toEqual([])
    expect(progressBatches.every((b) => Array.isArray(b))).toBe(true)
    // One notice for the batch, with the counts as the window writes them.
    const notices = messages.filter(([c]) => c === eventChannels.notice.name).map(([, p]) => p as AppNotice)
    expect(notices).toEqual([
      expect.objectContaining({ kind: 'upload-done', title: `Backup finished: ${FILES} files` }),
    ])
  })
})

describe('the upload list on disk', () => {
  it('a damaged uploads.sqlite is set aside and the owner is told once, in words, when the window lists uploads', async () => {
    const userDataDir = await mkdtemp(join(tmpdir(), 'vault-events-damaged-'))
    await writeFile(join(userDataDir, 'uploads.sqlite'), 'not a database, just some bytes'.repeat(200))
    const backend = createVaultApp({
      userDataDir,
      mode: 'browser',
      version: '0',
      useKeychain: false,
      secretBox: testSecretBox(),
    })
    try {
      const notices: AppNotice[] = []
      backend.events.subscribe((channel, payload) => {
        if (channel === eventChannels.notice.name) notices.push(payload as AppNotice)
      })
      for (let i = 0; i < 2; i++) {
        const listed = await dispatch(backend.handlers, invokeChannels.listUploads.name, undefined)
        expect(listed).toMatchObject({ ok: true, value: [] })
      }
      expect(notices).toHaveLength(1)
      expect(notices[0]).toMatchObject({ kind: 'upload-failed', title: 'The upload list needs attention' })
      expect(notices[0]!.body).toMatch(/could not be read .*kept as .*uploads\.sqlite\.damaged-\d+/)
    } finally {
      await backend.close()
      await rm(userDataDir, { recursive: true, force: true })
    }
  })
})
