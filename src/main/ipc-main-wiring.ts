// Connects the contract's handler table to ipcMain: every call is checked to come from our own
// window and page before its payload is validated and dispatched.
import type { IpcMainInvokeEvent, WebContents } from 'electron'
import { ipcMain } from 'electron'
import { invokeChannels } from '../shared/ipc/contract'
import { dispatch, type EventHub, type HandlerTable } from './core/ipc/handler-table'
import { isTrustedRendererUrl } from './trusted-renderer'

export function registerIpcHandlers(
  handlers: HandlerTable,
  trustedSender: () => { contents: WebContents | undefined; rendererUrl: string },
): void {
  for (const channel of Object.values(invokeChannels)) {
    ipcMain.handle(channel.name, (event: IpcMainInvokeEvent, args: unknown) => {
      const trusted = trustedSender()
      const frameUrl = event.senderFrame?.url ?? ''
      if (event.sender !== trusted.contents || !isTrustedRendererUrl(frameUrl, trusted.rendererUrl)) {
        return {
          ok: false,
          error: {
            code: 'FORBIDDEN_SENDER',
            message: 'This request did not come from the Vault Desktop window.',
          },
        }
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
