// Dispatch for the IPC contract, shared by the Electron ipcMain wiring and the browser-mode bridge:
// look up the channel, validate the argument with its schema, run the handler, return errors as data.
import type { z } from 'zod'
import { AppError } from '../../../shared/app-error'
import { type EventChannels, type InvokeChannels, invokeChannels } from '../../../shared/ipc/contract'
import type { IpcResponse, ParsedArgsOf, PayloadOf, ResultOf } from '../../../shared/ipc/contract-kit'
import { FileCipherError, ShareInputError } from '../../../vault-format'

export type HandlerTable = {
  [K in keyof InvokeChannels]: (
    args: ParsedArgsOf<InvokeChannels[K]>,
  ) => Promise<ResultOf<InvokeChannels[K]>> | ResultOf<InvokeChannels[K]>
}

const handlerKeyByWireName = new Map(
  Object.entries(invokeChannels).map(([key, channel]) => [channel.name, key as keyof InvokeChannels]),
)

export function describeInvalidArgs(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ')
}

/**
 * The one translation of a thrown value into what the window shows. Core errors are AppErrors
 * already; the vault-format library (which knows nothing of the app) is recognised by its classes,
 * whose messages are written for people; anything else is a fault of the app: INTERNAL, with what
 * failed kept as the detail, out of the sentence.
 */
export function asAppError(error: unknown): AppError {
  if (error instanceof AppError) return error
  if (error instanceof ShareInputError) {
    return new AppError({
      code: 'SHARE_INVALID',
      userMessage: error.message,
      detail: `share input: ${error.reason}`,
      cause: error,
    })
  }
  if (error instanceof FileCipherError) {
    return new AppError({
      code: 'DECRYPTION_FAILED',
      userMessage: error.message,
      detail: `file cipher: ${error.reason}${error.chunkIndex !== undefined ? ` at chunk ${error.chunkIndex}` : ''}`,
      cause: error,
    })
  }
  return new AppError({
    code: 'INTERNAL',
    userMessage:
      'Something went wrong inside the app. Try again; if it keeps happening, restart Vault Desktop.',
    detail: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    cause: error,
  })
}

export async function dispatch(
  handlers: HandlerTable,
  channelName: string,
  rawArgs: unknown,
): Promise<IpcResponse<unknown>> {
  const key = handlerKeyByWireName.get(channelName)
  if (!key) {
    return {
      ok: false,
      error: new AppError({
        code: 'UNKNOWN_CHANNEL',
        userMessage: `No such operation: ${channelName}.`,
      }).toData(),
    }
  }
  const parsed = invokeChannels[key].args.safeParse(rawArgs)
  if (!parsed.success) {
    return {
      ok: false,
      error: new AppError({
        code: 'INVALID_ARGUMENT',
        userMessage: `The app sent an invalid request (${describeInvalidArgs(parsed.error)}).`,
      }).toData(),
    }
  }
  try {
    const handler = handlers[key] as (args: unknown) => unknown
    return { ok: true, value: await handler(parsed.data) }
  } catch (error) {
    return { ok: false, error: asAppError(error).toData() }
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
