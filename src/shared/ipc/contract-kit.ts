// Building blocks of the IPC contract: a channel is a name, a zod schema for its one argument and a
// phantom result type. Main, preload, the browser bridge and the renderer all derive from the table.
import type { z } from 'zod'
import type { AppErrorData } from '../app-error'

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

/** Errors cross the bridge as data (AppErrorData); the renderer rebuilds an AppError from it. */
export type IpcResponse<R> = { ok: true; value: R } | { ok: false; error: AppErrorData }
