import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { dispatch } from '../../src/main/core/ipc/handler-table'
import { createVaultApp } from '../../src/main/core/vault-app'
import { AppError } from '../../src/shared/app-error'
import { buildRawBridge, EVENT_CHANNEL_NAMES, unwrapBridge } from '../../src/shared/ipc/bridge'
import { eventChannels, invokeChannels } from '../../src/shared/ipc/contract'
import { DEFAULT_SETTINGS } from '../../src/shared/ipc/settings'

async function backend() {
  const userDataDir = await mkdtemp(join(tmpdir(), 'vault-ipc-'))
  return {
    userDataDir,
    ...createVaultApp({ userDataDir, mode: 'browser', version: '9.9.9', secretStore: () => 'keychain' }),
  }
}

describe('IPC dispatch', () => {
  it('answers app info from the real handlers', async () => {
    const { handlers } = await backend()
    const response = await dispatch(handlers, 'app:get-info', undefined)
    expect(response).toEqual({
      ok: true,
      value: expect.objectContaining({ version: '9.9.9', mode: 'browser', secretStore: 'keychain' }),
    })
  })

  it('rejects unknown channels and invalid payloads with readable errors', async () => {
    const { handlers } = await backend()
    expect(await dispatch(handlers, 'fs:read-anything', '/etc/passwd')).toMatchObject({
      ok: false,
      error: { code: 'UNKNOWN_CHANNEL' },
    })
    const invalid = await dispatch(handlers, 'settings:update', { theme: 'purple' })
    expect(invalid).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } })
    expect(!invalid.ok && invalid.error.message).toContain('theme')
    const extra = await dispatch(handlers, 'settings:update', { nodeIntegration: true })
    expect(extra).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } })
    expect(await dispatch(handlers, 'app:get-info', { unexpected: 1 })).toMatchObject({ ok: false })
  })

  it('persists a settings patch without resetting other fields, and emits the change', async () => {
    const { handlers, events, userDataDir } = await backend()
    const seen: unknown[] = []
    events.subscribe((channel, payload) => seen.push([channel, payload]))
    await dispatch(handlers, 'settings:update', { theme: 'dark' })
    const second = await dispatch(handlers, 'settings:update', { overdueRepeatHours: 6 })
    expect(second).toEqual({ ok: true, value: { ...DEFAULT_SETTINGS, theme: 'dark', overdueRepeatHours: 6 } })
    const stored = JSON.parse(await readFile(join(userDataDir, 'settings.json'), 'utf8'))
    expect(stored).toMatchObject({ theme: 'dark', overdueRepeatHours: 6 })
    expect(seen).toHaveLength(2)
    expect(seen[1]).toEqual(['settings:changed', expect.objectContaining({ overdueRepeatHours: 6 })])
  })

  it('keeps valid stored settings and drops invalid ones from a damaged file', async () => {
    const { handlers, userDataDir } = await backend()
    await writeFile(
      join(userDataDir, 'settings.json'),
      JSON.stringify({ theme: 'light', overdueRepeatHours: -4 }),
    )
    const response = await dispatch(handlers, 'settings:get', undefined)
    expect(response).toEqual({ ok: true, value: { ...DEFAULT_SETTINGS, theme: 'light' } })
  })
})

describe('bridge built from the contract', () => {
  it('exposes exactly the contract channels and rethrows errors as AppError', async () => {
    const { handlers } = await backend()
    const raw = buildRawBridge(
      (channel, args) => dispatch(handlers, channel, args),
      () => () => {},
    )
    expect(Object.keys(raw).sort()).toEqual([...Object.keys(invokeChannels), 'on'].sort())
    const vault = unwrapBridge(raw)
    expect((await vault.getSettings()).theme).toBe('system')
    const failure = vault.updateSettings({ theme: 'neon' as 'dark' })
    await expect(failure).rejects.toBeInstanceOf(AppError)
    await expect(failure).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' })
  })
})

describe('upload events in the contract', () => {
  it('carries item changes and progress as batches on their own channels, nothing per item', () => {
    expect(eventChannels.uploadItems.name).toBe('uploads:items')
    expect(eventChannels.uploadProgress.name).toBe('uploads:progress')
    // The per-item channel is gone: a transport refuses it like any name outside the contract.
    expect(EVENT_CHANNEL_NAMES.has('uploads:item')).toBe(false)
    expect(Object.keys(eventChannels)).not.toContain('uploadItem')
  })

  it('the bridge subscribes by wire name and hands a batch to the listener whole', () => {
    const subscribed: string[] = []
    const listeners = new Map<string, (payload: unknown) => void>()
    const raw = buildRawBridge(
      async () => ({ ok: true, value: undefined }),
      (channel, listener) => {
        subscribed.push(channel)
        listeners.set(channel, listener)
        return () => listeners.delete(channel)
      },
    )
    const received: unknown[] = []
    const stop = raw.on.uploadItems((batch) => received.push(batch))
    raw.on.uploadProgress((batch) => received.push(batch))
    expect(subscribed).toEqual(['uploads:items', 'uploads:progress'])
    const batch = [{ id: 'a' }, { id: 'b' }]
    listeners.get('uploads:items')!(batch)
    listeners.get('uploads:progress')!([])
    expect(received).toEqual([batch, []])
    expect(received[0]).toBe(batch)
    stop()
    expect(listeners.has('uploads:items')).toBe(false)
  })
})
