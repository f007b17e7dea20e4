// The rules of the window's notices, apart from React and the bridge so they can be tested: how
// long one stays, which stay until dismissed, how few are stacked, and finished backups of one
// vault folded into one notice.
import type { AppNotice } from '../../shared/ipc/vault-types'

/** Notices from main, plus the window's own (a drop that cannot be used, a check-in's outcome). */
export interface NoticeInput {
  kind: AppNotice['kind'] | 'info' | 'error'
  title?: string
  body: string
  vaultId?: string
  /** Set when main wrote the words in the system's language and the page is English. */
  lang?: string
}

export interface Toast extends NoticeInput {
  id: number
  /** Finished backups folded into this notice (upload-done only). */
  lines: string[]
}

/** At most this many notices at once: the oldest that may go, goes. */
export const MAX_TOASTS = 3
const MIN_MS = 8_000
const MAX_MS = 20_000
/** About 200 words a minute, read twice as slowly as prose: a notice is read between other things. */
const MS_PER_CHAR = 60

/** The release and claim alarms and problems that need the owner's action stay until dismissed. */
export function staysUntilDismissed(kind: NoticeInput['kind']): boolean {
  return (
    kind === 'releasing' ||
    kind === 'claimed' ||
    kind === 'credits-low' ||
    kind === 'upload-failed' ||
    kind === 'error'
  )
}

/** How long a notice stays in view (without hover or focus), by how much there is to read. */
export function readingMs(toast: Pick<Toast, 'title' | 'body' | 'lines'>): number {
  const chars = (toast.title?.length ?? 0) + toast.body.length + toast.lines.join(' ').length
  return Math.min(MAX_MS, Math.max(MIN_MS, 4_000 + chars * MS_PER_CHAR))
}

/**
 * The notices after `incoming` arrives. A finished backup of a vault already showing one joins it
 * (the same line twice is one line); an identical notice replaces the one shown; beyond MAX_TOASTS
 * the oldest that does not stay goes first, then the oldest that does; the release alarm never.
 */
export function addNotice(toasts: readonly Toast[], incoming: NoticeInput, id: number): Toast[] {
  if (incoming.kind === 'upload-done' && incoming.vaultId) {
    const earlier = toasts.find((t) => t.kind === 'upload-done' && t.vaultId === incoming.vaultId)
    if (earlier) {
      const lines = earlier.lines.includes(incoming.body) ? earlier.lines : [...earlier.lines, incoming.body]
      const merged: Toast = { ...incoming, id, lines }
      return [...toasts.filter((t) => t !== earlier), merged]
    }
  }
  const same = (t: Toast) =>
    t.kind === incoming.kind &&
    t.title === incoming.title &&
    t.body === incoming.body &&
    t.vaultId === incoming.vaultId
  const next = [...toasts.filter((t) => !same(t)), { ...incoming, id, lines: [incoming.body] }]
  while (next.length > MAX_TOASTS) {
    // Never the one just come: it is what the owner has not seen yet.
    const older = next.slice(0, -1)
    const passing = older.findIndex((t) => !staysUntilDismissed(t.kind))
    const drop = passing >= 0 ? passing : older.findIndex((t) => t.kind !== 'releasing')
    if (drop < 0) break
    next.splice(drop, 1)
  }
  return next
}

/** Once the pointer or focus leaves, a notice whose time ran out meanwhile stays this much longer. */
export const AFTER_PAUSE_MS = 3_000

/**
 * The timers of the notices that go by themselves. `sync` follows the list (a new notice gets its
 * reading time, a gone one loses its timer); `pause` keeps every notice while the owner reads or
 * uses one, `resume` lets them go again with the time they had left.
 */
export class DismissTimers {
  readonly #entries = new Map<
    number,
    { timer?: ReturnType<typeof setTimeout>; left: number; since: number }
  >()
  readonly #expire: (id: number) => void
  readonly #now: () => number
  #paused = false

  constructor(expire: (id: number) => void, now: () => number = Date.now) {
    this.#expire = expire
    this.#now = now
  }

  sync(toasts: readonly Toast[]): void {
    for (const [id, entry] of this.#entries) {
      if (toasts.some((t) => t.id === id)) continue
      clearTimeout(entry.timer)
      this.#entries.delete(id)
    }
    for (const toast of toasts) {
      if (staysUntilDismissed(toast.kind) || this.#entries.has(toast.id)) continue
      const entry = { left: readingMs(toast), since: this.#now() }
      this.#entries.set(toast.id, entry)
      if (!this.#paused) this.#run(toast.id, entry)
    }
  }

  pause(): void {
    if (this.#paused) return
    this.#paused = true
    for (const entry of this.#entries.values()) {
      clearTimeout(entry.timer)
      entry.timer = undefined
      entry.left = Math.max(0, entry.left - (this.#now() - entry.since))
    }
  }

  resume(): void {
    if (!this.#paused) return
    this.#paused = false
    for (const [id, entry] of this.#entries) {
      entry.left = Math.max(entry.left, AFTER_PAUSE_MS)
      this.#run(id, entry)
    }
  }

  #run(id: number, entry: { timer?: ReturnType<typeof setTimeout>; left: number; since: number }): void {
    entry.since = this.#now()
    entry.timer = setTimeout(() => {
      this.#entries.delete(id)
      this.#expire(id)
    }, entry.left)
  }
}
