// Browser mode: the same `window.vault` shape, carried over the loopback WebSocket bridge.
import { buildRawBridge, type RawVaultBridge } from '../../shared/ipc/bridge'
import type { IpcResponse } from '../../shared/ipc/contract-kit'

const DISCONNECTED: IpcResponse<never> = {
  ok: false,
  error: {
    code: 'DISCONNECTED',
    message:
      'Lost the connection to the Vault Desktop backend. Start it again with "npm start" and reload this page.',
  },
}

export function connectWebSocketBridge(token: string): Promise<RawVaultBridge> {
  const socket = new WebSocket(`ws://${location.host}/bridge?token=${encodeURIComponent(token)}`)
  const pending = new Map<number, (response: IpcResponse<unknown>) => void>()
  const listeners = new Map<string, Set<(payload: unknown) => void>>()
  let nextId = 1

  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as
      | { type: 'result'; id: number; response: IpcResponse<unknown> }
      | { type: 'event'; channel: string; payload: unknown }
    if (message.type === 'result') {
      pending.get(message.id)?.(message.response)
      pending.delete(message.id)
    } else {
      for (const listener of listeners.get(message.channel) ?? []) listener(message.payload)
    }
  })
  socket.addEventListener('close', () => {
    for (const settle of pending.values()) settle(DISCONNECTED)
    pending.clear()
  })

  const bridge = buildRawBridge(
    (channel, args) =>
      new Promise((resolve) => {
        if (socket.readyState !== WebSocket.OPEN) return resolve(DISCONNECTED)
        const id = nextId++
        pending.set(id, resolve)
        socket.send(JSON.stringify({ type: 'invoke', id, channel, args }))
      }),
    (channel, listener) => {
      const set = listeners.get(channel) ?? new Set()
      set.add(listener)
      listeners.set(channel, set)
      return () => set.delete(listener)
    },
  )

  return new Promise((resolve, reject) => {
    socket.addEventListener('open', () => resolve(bridge), { once: true })
    socket.addEventListener(
      'error',
      () =>
        reject(
          new Error(
            'Could not connect to the Vault Desktop backend. Open the exact link "npm start" printed (it contains a one-time token).',
          ),
        ),
      { once: true },
    )
  })
}
