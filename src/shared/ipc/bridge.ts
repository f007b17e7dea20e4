// The shape of `window.vault`, derived from the contract. Errors travel as values (IpcResponse) because
// contextBridge strips error classes; the renderer unwraps them into AppError with `unwrapBridge`.

import { AppError } from '../app-error'
import { type EventChannels, eventChannels, type InvokeChannels, invokeChannels } from './contract'
import type { ArgsOf, IpcResponse, PayloadOf, ResultOf } from './contract-kit'

type Method<C, R> = undefined extends ArgsOf<C> ? (args?: ArgsOf<C>) => R : (args: ArgsOf<C>) => R

type Subscriptions = {
  [K in keyof EventChannels]: (listener: (payload: PayloadOf<EventChannels[K]>) => void) => () => void
}

/** What the preload (or the browser bridge) exposes as `window.vault`. */
export type RawVaultBridge = {
  [K in keyof InvokeChannels]: Method<InvokeChannels[K], Promise<IpcResponse<ResultOf<InvokeChannels[K]>>>>
} & { on: Subscriptions }

/** What renderer code calls: results resolve, failures reject with AppError. */
export type VaultBridge = {
  [K in keyof InvokeChannels]: Method<InvokeChannels[K], Promise<ResultOf<InvokeChannels[K]>>>
} & { on: Subscriptions }

export type ChannelInvoker = (channelName: string, args: unknown) => Promise<IpcResponse<unknown>>
export type ChannelSubscriber = (channelName: string, listener: (payload: unknown) => void) => () => void

export function buildRawBridge(
  invokeOnChannel: ChannelInvoker,
  subscribe: ChannelSubscriber,
): RawVaultBridge {
  const bridge: Record<string, unknown> = {}
  for (const [key, channel] of Object.entries(invokeChannels)) {
    bridge[key] = (args?: unknown) => invokeOnChannel(channel.name, args)
  }
  const on: Record<string, unknown> = {}
  for (const [key, channel] of Object.entries(eventChannels)) {
    on[key] = (listener: (payload: unknown) => void) => subscribe(channel.name, listener)
  }
  bridge.on = on
  return bridge as RawVaultBridge
}

export function unwrapBridge(raw: RawVaultBridge): VaultBridge {
  const bridge: Record<string, unknown> = { on: raw.on }
  for (const key of Object.keys(invokeChannels)) {
    const method = (raw as unknown as Record<string, (args?: unknown) => Promise<IpcResponse<unknown>>>)[key]!
    bridge[key] = async (args?: unknown) => {
      const response = await method(args)
      if (response.ok) return response.value
      throw AppError.fromData(response.error)
    }
  }
  return bridge as VaultBridge
}

/** Channel names by wire name, for transports that must reject anything outside the contract. */
export const INVOKE_CHANNEL_NAMES: ReadonlySet<string> = new Set(
  Object.values(invokeChannels).map((c) => c.name),
)
export const EVENT_CHANNEL_NAMES: ReadonlySet<string> = new Set(
  Object.values(eventChannels).map((c) => c.name),
)
