// bench:drop — browser mode's intake of dropped files: the bridge (this process) receives one file
// of each size from a WebSocket client in a child process that speaks the page's protocol (512 KiB
// chunks, 8 unacknowledged at most). Prints the server's peak memory growth per size (its VmHWM,
// reset before each run, over its RSS when the run starts) — flat means it does not grow with the
// file — and the receive rate. Target: under 32 MiB for 200 and 800 MiB. Last line: one JSON object.
import { fork } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import WebSocket from 'ws'
import { startBrowserBridge } from '../src/main/browser/bridge-server'
import { DropIntake } from '../src/main/browser/drop-intake'
import { EventHub, type HandlerTable } from '../src/main/core/ipc/handler-table'

const CHUNK = 512 * 1024
// BENCH_DROP_WINDOW=0: a page that ignores the window and sends everything at once (the bridge's own
// backpressure must then hold the memory).
const WINDOW = Number(process.env.BENCH_DROP_WINDOW ?? 8)
const SIZES_MIB = (process.env.BENCH_DROP_MIB ?? '200,800').split(',').map(Number)

async function statusKiB(field: 'VmHWM' | 'VmRSS'): Promise<number> {
  const status = await readFile('/proc/self/status', 'utf8')
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1])
}
const peakKiB = () => statusKiB('VmHWM')

/**
 * Each run's own peak: Linux resets VmHWM to the present RSS when 5 is written to clear_refs, so a
 * run is measured from where it starts, not against the peak an earlier (larger) run left behind.
 */
async function resetPeak(): Promise<void> {
  await writeFile('/proc/self/clear_refs', '5')
}

/** The client side: sends `mib` MiB as one dropped file and exits when it is written. */
async function client(url: string, origin: string, mib: number): Promise<void> {
  const socket = new WebSocket(url, { headers: { origin } })
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
  let id = 1
  const results = new Map<number, (r: { value: Record<string, unknown> }) => void>()
  let written = 0
  let wake = () => {}
  socket.on('message', (data) => {
    const m = JSON.parse(data.toString())
    if (m.type === 'result') results.get(m.id)?.(m.response)
    else if (m.type === 'intake-ack') {
      written = m.received
      wake()
    } else if (m.type === 'intake-error') throw new Error(m.message)
  })
  const step = (op: string, fields: Record<string, unknown> = {}) =>
    new Promise<{ value: Record<string, unknown> }>((resolve) => {
      const n = id++
      results.set(n, resolve)
      socket.send(JSON.stringify({ type: 'intake', id: n, op, ...fields }))
    })
  const size = mib * 1024 * 1024
  const dropId = (await step('begin')).value.dropId
  const fileId = (await step('file', { dropId, relativePath: 'video.mp4', size, lastModified: 0 })).value
    .fileId as number
  const frame = Buffer.alloc(4 + CHUNK)
  frame.writeUInt32BE(fileId)
  for (let i = 4; i < frame.length; i++) frame[i] = i & 0xff
  for (let sent = 0; sent < size; sent += CHUNK) {
    while (WINDOW > 0 && sent - written >= WINDOW * CHUNK) await new Promise<void>((r) => (wake = r))
    socket.send(frame)
  }
  while (written < size) await new Promise<void>((r) => (wake = r))
  await step('close-file', { fileId })
  await step('end', { dropId })
  await step('abort', { dropId })
  socket.close()
}

if (process.argv[2] === '--client') {
  await client(process.argv[3]!, process.argv[4]!, Number(process.argv[5]))
  process.exit(0)
}

const work = await mkdtemp(join(tmpdir(), 'bench-drop-'))
await writeFile(join(work, 'index.html'), '<!doctype html>')
const bridge = await startBrowserBridge({
  rendererDir: work,
  handlers: {} as HandlerTable,
  events: new EventHub(),
  intake: { intake: new DropIntake(join(work, 'dropped')), needed: () => new Set() },
})
const url = new URL(bridge.url)
const wsUrl = `ws://127.0.0.1:${bridge.port}/bridge?token=${url.searchParams.get('token')}`
const startPeakMiB = (await peakKiB()) / 1024
const runs: Array<{ mib: number; peakGrowthMiB: number; mibPerSecond: number }> = []
async function sendFromChild(mib: number): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), ['--client', wsUrl, url.origin, String(mib)], {
    execArgv: ['--import', 'tsx'],
  })
  await new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve(code) : reject(new Error(`client exited ${code}`)))),
  )
}
// One small untimed drop first: compiling the receive path and the first connection are paid once per
// process, not per byte, and would otherwise be charged to whichever size runs first.
await sendFromChild(16)
for (const mib of SIZES_MIB) {
  await resetPeak()
  const before = await statusKiB('VmRSS')
  const started = performance.now()
  await sendFromChild(mib)
  const seconds = (performance.now() - started) / 1000
  const run = { mib, peakGrowthMiB: ((await peakKiB()) - before) / 1024, mibPerSecond: mib / seconds }
  runs.push(run)
  console.log(
    `${mib} MiB: server peak grew ${run.peakGrowthMiB.toFixed(1)} MiB, ${run.mibPerSecond.toFixed(0)} MiB/s`,
  )
}
await bridge.close()
await rm(work, { recursive: true, force: true })
console.log(
  JSON.stringify({
    bench: 'drop-intake',
    chunkKiB: CHUNK / 1024,
    windowChunks: WINDOW,
    startPeakMiB,
    endPeakMiB: (await peakKiB()) / 1024,
    runs,
  }),
)
