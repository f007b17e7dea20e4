// Counts the app's timer callbacks by where each timer was set (file:line of the first frame outside
// this module and Node's own), for bench:idle's "what is each wake-up for". Imported before anything
// else by bench/idle-client.ts, so every timer the app sets through the globals is seen.
const counts = new Map<string, number>()
let recording = false

function origin(): string {
  // Past "Error", this function and the patched global: the first frame of whoever set the timer.
  const frames = (new Error().stack ?? '').split('\n').slice(3)
  for (const frame of frames) {
    if (frame.includes('node:')) continue
    // file:line:column, mapped back to the source by bench/idle.ts.
    const at = /\(?(\/[^()\s]+:\d+:\d+)\)?\s*$/.exec(frame)
    return at ? at[1]! : frame.trim().replace(/^at /, '')
  }
  return 'unknown'
}

function counted<A extends unknown[]>(callback: (...args: A) => void, where: string) {
  return (...args: A) => {
    if (recording) counts.set(where, (counts.get(where) ?? 0) + 1)
    callback(...args)
  }
}

const original = { setTimeout, setInterval, setImmediate }
const patched = globalThis as unknown as Record<keyof typeof original, unknown>
patched.setTimeout = (callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) =>
  original.setTimeout(counted(callback, `setTimeout ${origin()}`), ms, ...args)
patched.setInterval = (callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) =>
  original.setInterval(counted(callback, `setInterval ${origin()}`), ms, ...args)
patched.setImmediate = (callback: (...args: unknown[]) => void, ...args: unknown[]) =>
  original.setImmediate(counted(callback, `setImmediate ${origin()}`), ...args)

export const timerCensus = {
  start(): void {
    counts.clear()
    recording = true
  },
  stop(): Record<string, number> {
    recording = false
    return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]))
  },
}
