// Connects the contract's handler table to ipcMain: every call is checked to come from the top-level
// frame of our own window and page before its payload is validated and dispatched; refusals are logged.
import type { IpcMainInvokeEvent, WebContents } from 'electron'
import { ipcMain } from 'electron'
import { AppError } from '../../shared/app-error'
import { invokeChannels } from '../../shared/ipc/contract'
import { dispatch, type EventHub, type HandlerTable } from '../core/ipc/handler-table'
import { ipcRefusal } from './trusted-renderer'

export function registerIpcHandlers(
  handlers: HandlerTable,
  trustedSender: () => { contents: WebContents | undefined; rendererUrl: string },
  log: (line: string) => void = console.warn,
): void {
  for (const channel of Object.values(invokeChannels)) {
    ipcMain.handle(channel.name, (event: IpcMainInvokeEvent, args: unknown) => {
      const trusted = trustedSender()
      const frame = event.senderFrame
      const frameUrl = frame?.url ?? ''
      const refusal = ipcRefusal(
        {
          fromMainWindow: trusted.contents !== undefined && event.sender === trusted.contents,
          // As VS Code's validated IPC: a frame with a parent is an iframe.
          topFrame: frame !== null && frame !== undefined && frame.parent === null,
          frameUrl,
        },
        trusted.rendererUrl,
      )
      if (refusal) {
        // The payload is not logged: it may hold words of a kit or a key.
        log(`IPC call to ${channel.name} refused: ${refusal} (frame ${frameUrl || 'unknown'})`)
        const error = new AppError({
          code: 'FORBIDDEN_SENDER',
          userMessage: 'This request did not come from the Vault Desktop window.',
        })
        return { ok: false, error: error.toData() }
      }
      return dispatch(handlers, channel.name, args)
    })
  }
}

export function forwardEvents(events: EventHub, contents: () => WebContents | undefined): () => void {
  return events.subscribe((channel, payload) => {
    const target = contents()
    if (target && !target.isDestroyed()) target.send(channel, payload)
  })
}
