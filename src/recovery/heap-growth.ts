// The heir's tool holds a small JS heap (~8 MB) while gigabytes of buffers go through it. V8 sets the
// old generation's limit a small step above what is live, and starts marking whenever the room left
// is less than the young generation's size: a full mark-compact every ~90 ms of a download, ~120 per
// GB and ~2 s of CPU, for a heap that never grows. Letting each limit be 5x what is live (V8's
// --heap-growing-percent) leaves that room: 1-2 for 200 MB instead of ~20. Only in the tool's own
// process (cli.ts, and the bench client that stands in for it), never in the app, whose V8 is Electron's.
import { setFlagsFromString } from 'node:v8'

/** The old generation's limit after a collection: what is live times (1 + this / 100). */
export const HEAP_GROWING_PERCENT = 400

export function letHeapGrowForDownloads(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`)
}
