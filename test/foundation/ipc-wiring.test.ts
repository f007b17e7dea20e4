// The real ipcMain wiring with a stand-in ipcMain: only the top-level frame of the app's window and
// page reaches a handler, and every refusal is logged without the payload.
import { beforeEach, describe, expect, it, vi } from 'vitest'

type Handle = (event: unknown, args: unknown) => unknown
const handles = new Map<string, Handle>()
vi.mock('electron', () => ({
  ipcMain: { handle: (channel: string, handle: Handle) => handles.set(channel, handle) },
}))

const { registerIpcHandlers } = await import('../../src/main/electron/ipc-main-wiring')
const { invokeChannels } = await import('../../src/shared/ipc/contract')

const page = 'app://vault/index.html'
const mainWindow = { id: 1 }
const topFrame = { url: page, parent: null }

describe('ipcMain wiring', () => {
  const log: string[] = []
  let calls = 0
  beforeEach(() => {
    handles.clear()
    log.length = 0
    calls = 0
    const handlers = {
      getAppInfo: () => {
        calls++
        return { mode: 'electron' }
      },
    }
    registerIpcHandlers(
      handlers as never,
      () => ({ contents: mainWindow as never, rendererUrl: page }),
      (line) => log.push(line),
    )
  })
  const channel = invokeChannels.getAppInfo.name
  const invoke = (event: unknown, ...args: unknown[]) =>
    handles.get(channel)!(event, args.length ? args[0] : 'secret words in the payload')

  it('dispatches a call from the top-level frame of the app page', async () => {
    const response = await invoke({ sender: mainWindow, senderFrame: topFrame }, undefined)
    expect(response).not.toMatchObject({ error: { code: 'FORBIDDEN_SENDER' } })
    expect(calls).toBe(1)
    expect(log).toEqual([])
  })

  it('refuses and logs a call from an iframe of the app page, even with the app URL', async () => {
    const iframe = { url: page, parent: topFrame }
    expect(await invoke({ sender: mainWindow, senderFrame: iframe })).toMatchObject({
      ok: false,
      error: { code: 'FORBIDDEN_SENDER' },
    })
    expect(calls).toBe(0)
    expect(log).toHaveLength(1)
    expect(log[0]).toContain(channel)
    expect(log[0]).toMatch(/sub-frame/)
    expect(log[0]).not.toContain('secret words')
  })

  it('refuses and logs calls from another window, another page, or a frame already gone', async () => {
    await invoke({ sender: { id: 2 }, senderFrame: topFrame })
    await invoke({ sender: mainWindow, senderFrame: { url: 'https://evil.example/', parent: null } })
    await invoke({ sender: mainWindow, senderFrame: null })
    expect(calls).toBe(0)
    expect(log).toHaveLength(3)
  })
})
