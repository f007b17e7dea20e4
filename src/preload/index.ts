// Preload (sandboxed): exposes exactly the contract's channels as `window.vault`, nothing else.
import { contextBridge, ipcRenderer, webUtils } from 'electron'
import { buildRawBridge, EVENT_CHANNEL_NAMES } from '../shared/ipc/bridge'
import type { IpcResponse } from '../shared/ipc/contract-kit'

const vault = buildRawBridge(
  (channel, args) => ipcRenderer.invoke(channel, args) as Promise<IpcResponse<unknown>>,
  (channel, listener) => {
    if (!EVENT_CHANNEL_NAMES.has(channel)) throw new Error(`Unknown event: ${channel}`)
    const wrapped = (_event: Electron.IpcRendererEvent, payload: unknown) => listener(payload)
    ipcRenderer.on(channel, wrapped)
    return () => {
      ipcRenderer.removeListener(channel, wrapped)
    }
  },
)

contextBridge.exposeInMainWorld('vault', vault)
// Dropped files: File.path is gone; main validates every path it receives.
contextBridge.exposeInMainWorld('vaultFiles', {
  pathForFile: (file: File) => webUtils.getPathForFile(file),
})
