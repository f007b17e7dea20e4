// The measured side of a benchmark child process: one run's wall time, its process's CPU (all
// threads) and RSS at the start and at its peak (the kernel's VmHWM, or sampled every 50 ms where
// /proc is missing). The run is the only thing the process does, so the figures are its own.
import { readFileSync } from 'node:fs'

export interface MeasuredRun {
  seconds: number
  /** User + system CPU of the whole process during the run. */
  cpuSeconds: number
  /** RSS just before the run, with the code loaded. */
  startRssMB: number
  /** The process's peak RSS (startup included). */
  peakRssMB: number
  peakFrom: 'VmHWM' | 'sampled'
}

function vmHwm(): number | null {
  try {
    const kB = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]
    return kB ? Number(kB) * 1024 : null
  } catch {
    return null
  }
}

export async function measureRun<T>(work: () => Promise<T>): Promise<MeasuredRun & { value: T }> {
  let sampledPeak = process.memoryUsage.rss()
  const sampler =
    vmHwm() === null
      ? setInterval(() => {
          sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss())
        }, 50)
      : undefined
  const startRss = process.memoryUsage.rss()
  const cpu = process.cpuUsage()
  const t0 = performance.now()
  try {
    const value = await work()
    const seconds = (performance.now() - t0) / 1000
    const used = process.cpuUsage(cpu)
    const hwm = vmHwm()
    return {
      value,
      seconds,
      cpuSeconds: (used.user + used.system) / 1e6,
      startRssMB: startRss / 1e6,
      peakRssMB: Math.max(hwm ?? 0, sampledPeak, process.memoryUsage.rss()) / 1e6,
      peakFrom: hwm === null ? 'sampled' : 'VmHWM',
    }
  } finally {
    if (sampler) clearInterval(sampler)
  }
}
