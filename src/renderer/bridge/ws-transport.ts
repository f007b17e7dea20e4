// Browser mode: the same `window.vault` shape, carried over the loopback WebSocket bridge, plus the
// intake that streams dropped files' bytes to the backend (a page has no paths).

import type { AppErrorData } from '../../shared/app-error'
import { buildRawBridge, type RawVaultBridge } from '../../shared/ipc/bridge'
import type { IpcResponse } from '../../shared/ipc/contract-kit'

const DISCONNECTED: { ok: false; error: AppErrorData } = {
  ok: false,
  error: {
    code: 'DISCONNECTED',
    message:
      'Lost the connection to the Vault Desktop backend. Start it again with "npm start" and reload this page.',
  },
}

/** The bridge's side of a drop: steps as requests, bytes as binary frames acknowledged once written. */
export interface IntakeTransport {
  request(op: string, fields?: Record<string, unknown>): Promise<IpcResponse<unknown>>
  /** Sends one chunk of a file: a 4-byte file number, then the bytes. */
  sendChunk(fileId: number, bytes: Uint8Array): void
  /** Called with the bytes written so far, or with the reason the file failed. */
  onAck(fileId: number, listener: (ack: { received?: number; error?: string }) => void): () => void
}

export interface WebSocketConnection {
  bridge: RawVaultBridge
  intake: IntakeTransport
  /** Called once when the backend goes away (stopped, crashed): the page can no longer do anything. */
  onLost(listener: () => void): void
}

type ServerMessage =
  | { type: 'result'; id: number; response: IpcResponse<unknown> }
  | { type: 'event'; channel: string; payload: unknown }
  | { type: 'intake-ack'; fileId: number; received: number }
  | { type: 'intake-error'; fileId: number; message: string }

export function connectWebSocketBridge(token: string): Promise<WebSocketConnection> {
  const socket = new WebSocket(`ws://${location.host}/bridge?token=${encodeURIComponent(token)}`)
  socket.binaryType = 'arraybuffer'
  const pending = new Map<number, (response: IpcResponse<unknown>) => void>()
  const listeners = new Map<string, Set<(payload: unknown) => void>>()
  const acks = new Map<number, (ack: { received?: number; error?: string }) => void>()
  let nextId = 1
  const lost = new Set<() => void>()

  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as ServerMessage
    if (message.type === 'result') {
      pending.get(message.id)?.(message.response)
      pending.delete(message.id)
    } else if (message.type === 'event') {
      for (const listener of listeners.get(message.channel) ?? []) listener(message.payload)
    } else if (message.type === 'intake-ack') {
      acks.get(message.fileId)?.({ received: message.received })
    } else if (message.type === 'intake-error') {
      acks.get(message.fileId)?.({ error: message.message })
    }
  })
  socket.addEventListener('close', () => {
    for (const settle of pending.values()) settle(DISCONNECTED)
    pending.clear()
    for (const ack of acks.values()) ack({ error: DISCONNECTED.error.message })
    for (const listener of lost) listener()
  })

  const request = (message: Record<string, unknown>) =>
    new Promise<IpcResponse<unknown>>((resolve) => {
      if (socket.readyState !== WebSocket.OPEN) return resolve(DISCONNECTED)
      const id = nextId++
      pending.set(id, resolve)
      socket.send(JSON.stringify({ ...message, id }))
    })

  const bridge = buildRawBridge(
    (channel, args) => request({ type: 'invoke', channel, args }),
    (channel, listener) => {
      const set = listeners.get(channel) ?? new Set()
      set.add(listener)
      listeners.set(channel, set)
      return () => set.delete(listener)
    },
  )
  const intake: IntakeTransport = {
    request: (op, fields = {}) => request({ type: 'intake', op, ...fields }),
    sendChunk: (fileId, bytes) => {
      const frame = new Uint8Array(4 + bytes.byteLength)
      new DataView(frame.buffer).setUint32(0, fileId)
      frame.set(bytes, 4)
      socket.send(frame)
    },
    onAck: (fileId, listener) => {
      acks.set(fileId, listener)
      return () => acks.delete(fileId)
    },
  }

  return new Promise((resolve, reject) => {
    socket.addEventListener(
      'open',
      () => resolve({ bridge, intake, onLost: (listener) => void lost.add(listener) }),
      { once: true },
    )
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
