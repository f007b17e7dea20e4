// Building blocks of the IPC contract: a channel is a name, a zod schema for its one argument and a
// phantom result type. Main, preload, the browser bridge and the renderer all derive from the table.
import type { z } from 'zod'

export interface InvokeChannel<A extends z.ZodType, R> {
  readonly kind: 'invoke'
  readonly name: string
  readonly args: A
  /** Phantom: never set at runtime, carries the result type. */
  readonly result?: R
}

export interface EventChannel<P> {
  readonly kind: 'event'
  readonly name: string
  /** Phantom: never set at runtime, carries the payload type. */
  readonly payload?: P
}

export const invoke =
  <R>() =>
  <A extends z.ZodType>(name: string, args: A): InvokeChannel<A, R> => ({ kind: 'invoke', name, args })

export const event = <P>(name: string): EventChannel<P> => ({ kind: 'event', name })

export type ArgsOf<C> = C extends InvokeChannel<infer A, unknown> ? z.input<A> : never
export type ParsedArgsOf<C> = C extends InvokeChannel<infer A, unknown> ? z.output<A> : never
export type ResultOf<C> = C extends InvokeChannel<z.ZodType, infer R> ? R : never
export type PayloadOf<C> = C extends EventChannel<infer P> ? P : never

/** Errors cross the bridge as data; the renderer rebuilds an IpcError from this. */
export interface IpcErrorData {
  /** Vault API code (e.g. INSUFFICIENT_CREDITS) or a bridge code (INVALID_ARGUMENT, FORBIDDEN_SENDER, INTERNAL). */
  code: string
  /** A sentence for the user: what happened and what to do. */
  message: string
  status?: number
  retryAfterSeconds?: number
  details?: Record<string, unknown>
}

export type IpcResponse<R> = { ok: true; value: R } | { ok: false; error: IpcErrorData }

export class IpcError extends Error {
  readonly code: string
  readonly status?: number
  readonly retryAfterSeconds?: number
  readonly details?: Record<string, unknown>
  constructor(data: IpcErrorData) {
    super(data.message)
    this.name = 'IpcError'
    this.code = data.code
    this.status = data.status
    this.retryAfterSeconds = data.retryAfterSeconds
    this.details = data.details
  }
  toData(): IpcErrorData {
    return {
      code: this.code,
      message: this.message,
      status: this.status,
      retryAfterSeconds: this.retryAfterSeconds,
      details: this.details,
    }
  }
}
