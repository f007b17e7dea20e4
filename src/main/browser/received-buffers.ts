// Browser mode receives a dropped file as WebSocket frames, each in a fresh buffer. V8 gives a
// written frame's memory back only when a collection runs, and receiving allocates almost nothing else
// on the heap, so frames already on disk piled up to ~30 MiB between collections (`npm run bench:drop`:
// the intake's peak grew 33–40 MiB whatever the file's size). A collection after every 8 MiB written
// (a few ms on this small heap, under 0.1 s for 800 MiB) holds the growth near 25 MiB.
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

const COLLECT_EVERY_BYTES = 8 * 1024 * 1024

type Collect = (options: { type: 'major' }) => void

let collect: Collect | undefined
let sinceLast = 0

function collector(): Collect {
  if (!collect) {
    // The flag exposes `gc` only to contexts made after it: one made here, for this alone.
    setFlagsFromString('--expose-gc')
    collect = runInNewContext('gc') as Collect
  }
  return collect
}

/** Counts bytes whose buffers are done with, and collects after every few MiB of them. */
export function releaseReceived(bytes: number): void {
  sinceLast += bytes
  if (sinceLast < COLLECT_EVERY_BYTES) return
  sinceLast = 0
  collector()({ type: 'major' })
}
