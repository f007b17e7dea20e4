// Dispatch for the IPC contract, shared by the Electron ipcMain wiring and the browser-mode bridge:
// look up the channel, validate the argument with its schema, run the handler, return errors as data.
import type { z } from 'zod'
import { type EventChannels, type InvokeChannels, invokeChannels } from '../../../shared/ipc/contract'
import {
  IpcError,
  type IpcErrorData,
  type IpcResponse,
  type ParsedArgsOf,
  type PayloadOf,
  type ResultOf,
} from '../../../shared/ipc/contract-kit'

export type HandlerTable = {
  [K in keyof InvokeChannels]: (
    args: ParsedArgsOf<InvokeChannels[K]>,
  ) => Promise<ResultOf<InvokeChannels[K]>> | ResultOf<InvokeChannels[K]>
}

/** An error a handler can throw to give the user a specific message and code. */
export interface UserFacingError {
  toIpcError(): IpcErrorData
}

function isUserFacing(error: unknown): error is UserFacingError {
  return typeof (error as UserFacingError | null)?.toIpcError === 'function'
}

/** Core errors that already carry a sentence for the user (VaultApiError, ConnectionError). */
interface CoreUserError {
  userMessage: string
  code?: string
  status?: number
  retryAfterSeconds?: number
}

function hasUserMessage(error: unknown): error is Error & CoreUserError {
  return error instanceof Error && typeof (error as Partial<CoreUserError>).userMessage === 'string'
}

const handlerKeyByWireName = new Map(
  Object.entries(invokeChannels).map(([key, channel]) => [channel.name, key as keyof InvokeChannels]),
)

export function describeInvalidArgs(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ')
}

export function toIpcErrorData(error: unknown): IpcErrorData {
  if (error instanceof IpcError) return error.toData()
  if (isUserFacing(error)) return error.toIpcError()
  if (hasUserMessage(error)) {
    return {
      code: typeof error.code === 'string' ? error.code : 'ERROR',
      message: error.userMessage,
      ...(error.status ? { status: error.status } : {}),
      ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
    }
  }
  const detail = error instanceof Error ? error.message : String(error)
  return {
    code: 'INTERNAL',
    message: `Something went wrong inside the app (${detail}). Try again; if it keeps happening, restart Vault Desktop.`,
  }
}

export async function dispatch(
  handlers: HandlerTable,
  channelName: string,
  rawArgs: unknown,
): Promise<IpcResponse<unknown>> {
  const key = handlerKeyByWireName.get(channelName)
  if (!key) {
    return { ok: false, error: { code: 'UNKNOWN_CHANNEL', message: `No such operation: ${channelName}.` } }
  }
  const parsed = invokeChannels[key].args.safeParse(rawArgs)
  if (!parsed.success) {
    return {
      ok: false,
      error: {
        code: 'INVALID_ARGUMENT',
        message: `The app sent an invalid request (${describeInvalidArgs(parsed.error)}).`,
      },
    }
  }
  try {
    const handler = handlers[key] as (args: unknown) => unknown
    return { ok: true, value: await handler(parsed.data) }
  } catch (error) {
    return { ok: false, error: toIpcErrorData(error) }
  }
}

type EventListener = (channelName: string, payload: unknown) => void

/** Main -> renderer events: core code emits by contract key; transports subscribe by wire name. */
export class EventHub {
  readonly #listeners = new Set<EventListener>()

  emit<K extends keyof EventChannels>(channel: EventChannels[K], payload: PayloadOf<EventChannels[K]>): void {
    for (const listener of this.#listeners) listener(channel.name, payload)
  }

  subscribe(listener: EventListener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }
}
