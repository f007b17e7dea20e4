// The measured side of bench/idle.ts, a bundled Node process of its own: the app's core (createVaultApp,
// as both shells run it) connected to the local Vault Service, with 5 vaults on a dead man's switch
// (and, with --releasing, a sixth whose release has started). After the start settles it sits idle
// for the given minutes and prints one JSON line: CPU, wake-ups, timer callbacks by origin, RSS,
// requests sent to the service, and bytes written.

import { subscribe } from 'node:diagnostics_channel'
import { readdirSync, readFileSync } from 'node:fs'
import type { ClientRequest } from 'node:http'
import { getHeapSpaceStatistics } from 'node:v8'
import { dispatch } from '../src/main/core/ipc/handler-table'
import { createVaultApp } from '../src/main/core/vault-app'
import { TrayShown } from '../src/main/electron/tray-menu'
import { invokeChannels } from '../src/shared/ipc/contract'
import { timerCensus } from './timer-census'

const [serviceUrl, userDataDir, minutesArg, releasingArg] = process.argv.slice(2)
const apiKey = process.env.VAULT_BENCH_API_KEY
if (!serviceUrl || !userDataDir || !minutesArg || !apiKey) {
  console.error('usage: VAULT_BENCH_API_KEY=... idle-client <url> <userDataDir> <minutes> [releasing]')
  process.exit(2)
}
const minutes = Number(minutesArg)
const SETTLE_MS = 20_000

const requests = new Map<string, number>()
let countingRequests = false
subscribe('http.client.request.start', (message) => {
  if (!countingRequests) return
  const request = (message as { request: ClientRequest }).request
  // Ids out of the path, so the same call on any vault counts as one kind.
  const path = request.path.split('?')[0]!.replace(/\/[A-Za-z0-9_-]{16,}/g, '/:id')
  const kind = `${request.method} ${path}`
  requests.set(kind, (requests.get(kind) ?? 0) + 1)
})

const app = createVaultApp({ userDataDir, mode: 'browser', version: '0.0.0-bench', useKeychain: false })
await app.start()
// The tray as the desktop shell would draw it: every view the core sends, and those it would redraw.
const tray = { views: 0, redraws: 0 }
const trayShown = new TrayShown()
app.on('tray', (view) => {
  const redraw = trayShown.changes(view, app.vaults())
  if (!countingRequests) return
  tray.views++
  if (redraw) tray.redraws++
})
async function call(key: keyof typeof invokeChannels, args?: unknown): Promise<unknown> {
  const response = (await dispatch(app.handlers, invokeChannels[key].name, args)) as
    | { ok: true; value: unknown }
    | { ok: false; error: { code: string; message: string } }
  if (!response.ok) throw new Error(`${key}: ${response.error.code} ${response.error.message}`)
  return response.value
}

await call('connectService', { serviceUrl, apiKey })
for (let i = 1; i <= 5; i++) {
  const vault = (await call('createVault', { preset: 'standard', name: `Vault ${i}` })) as { id: string }
  await call('configureRelease', {
    vaultId: vault.id,
    trigger: 'dead_man_switch',
    checkInFrequency: 'monthly',
  })
  await call('checkIn', { vaultId: vault.id })
}
if (releasingArg === 'releasing') {
  const vault = (await call('createVault', { preset: 'standard', name: 'Releasing' })) as { id: string }
  await call('configureRelease', { vaultId: vault.id, trigger: 'manual' })
  await call('startRelease', { vaultId: vault.id })
}
await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))

/** Context switches of every thread: each voluntary one is a sleep that something woke. */
function threadSwitches(): { main: number; all: number } {
  let all = 0
  let main = 0
  for (const task of readdirSync('/proc/self/task')) {
    const status = readFileSync(`/proc/self/task/${task}/status`, 'utf8')
    const voluntary = Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0)
    all += voluntary
    if (task === String(process.pid)) main = voluntary
  }
  return { main, all }
}
function io(): { writeBytes: number; writeCalls: number } {
  const text = readFileSync('/proc/self/io', 'utf8')
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)?.[1] ?? 0)
  return { writeBytes: field('write_bytes'), writeCalls: field('syscw') }
}
const rssMB = () => process.memoryUsage.rss() / 1e6
/** Live JS objects: the heap after a full collection (what a leak would grow). */
function heapAfterGcMB(): number {
  ;(globalThis as { gc?: () => void }).gc?.()
  return process.memoryUsage().heapUsed / 1e6
}

/** Each V8 heap space's resident memory (MB): which of them an RSS growth is in. */
function heapSpacesMB(): Record<string, number> {
  return Object.fromEntries(
    getHeapSpaceStatistics().map((s) => [s.space_name, Number((s.physical_space_size / 1e6).toFixed(2))]),
  )
}

// RSS and heap spaces are read before the collection below, as at the end: a full collection
// shrinks the young generation, and a start read after it would count its regrowth as growth.
const rssStart = rssMB()
const spacesStart = heapSpacesMB()
const heapStart = heapAfterGcMB()
const start = { cpu: process.cpuUsage(), switches: threadSwitches(), io: io(), rssMB: rssStart }
timerCensus.start()
countingRequests = true
process.stderr.write('measuring\n')
await new Promise((resolve) => setTimeout(resolve, minutes * 60_000))
countingRequests = false
const timers = timerCensus.stop()
const cpu = process.cpuUsage(start.cpu)
const switches = threadSwitches()
const end = io()
const rssEnd = rssMB()
const result = {
  minutes,
  releasing: releasingArg === 'releasing',
  vaults: app.vaults().length,
  cpuSeconds: (cpu.user + cpu.system) / 1e6,
  wakeUpsPerMinute: {
    mainThread: (switches.main - start.switches.main) / minutes,
    allThreads: (switches.all - start.switches.all) / minutes,
  },
  timerCallbacksPerMinute: Object.fromEntries(Object.entries(timers).map(([k, v]) => [k, v / minutes])),
  rssMB: { start: start.rssMB, end: rssEnd },
  heapSpacesMB: { start: spacesStart, end: heapSpacesMB() },
  heapAfterGcMB: { start: heapStart, end: heapAfterGcMB() },
  /** RSS right after that collection: what of the growth was garbage not yet collected. */
  rssAfterGcMB: rssMB(),
  /** And 3 s later: V8 hands the pages a collection emptied back to the system from a background task. */
  rssSettledMB: 0,
  requestsPerHour: Object.fromEntries([...requests].map(([k, v]) => [k, (v * 60) / minutes])),
  trayPerHour: { views: (tray.views * 60) / minutes, redraws: (tray.redraws * 60) / minutes },
  written: { bytes: end.writeBytes - start.io.writeBytes, writeCalls: end.writeCalls - start.io.writeCalls },
}
await new Promise((resolve) => setTimeout(resolve, 3000))
result.rssSettledMB = rssMB()
process.stderr.write('measured\n')
await new Promise((resolve) => setTimeout(resolve, 500))
await app.close()
process.stdout.write(`${JSON.stringify(result)}\n`)
process.exit(0)
