// Throughput, CPU time and memory of file encryption and decryption, against `age` on the same file.
//   npm run bench:crypto [-- --size-mb 1024 --noble-size-mb 64 --rounds 5]
// Every measurement is a process of its own: ours run a plain-node bundle of this file (tsx's loader
// would add ~70 MB of RSS), age runs as itself. All of them run once per round, in an order that
// rotates from round to round (so none is always first or last), for `--rounds` rounds (default 5);
// each figure is the median over the rounds.
//   CPU: user + system time of the whole child process, all threads, start-up included, as the
//        kernel accounts it to its parent (Linux; null elsewhere); and "work": ours without their
//        start-up (process.cpuUsage around the work, inside the child).
//   MB/s: bytes / wall time of the work (ours: timed inside the child; age: spawn to exit).
//   Peak RSS: the child's own (ours), VmHWM sampled while it runs (age, Linux).
// Files stream from disk (os.tmpdir, in the page cache) to /dev/null. MB = 10^6 bytes, MiB = 2^20.
// Ours use the native AES-GCM where it is built (scripts/build-native-cipher.mjs), else node:crypto; the
// JSON's "aead" says which.
// Rows:
//   upload path      encryptFile, what the upload queue runs: with the native AES-GCM it reads (libuv's
//                    pool) and seals on this thread; with node:crypto on one reader thread.
//   stream           encryptStream / decryptStream (bundles, CLI, recovery) with nodeCipher(false)
//                    on this thread, fed by a reader that reuses two buffers (encryption) or reads
//                    into fresh ones (decryption, which keeps pieces until it has used them).
//   stream + pool    the same with the worker pool (nodeCipher(true), N threads). nodeCipher()
//                    takes the pool only with more than 2 cores: the JSON says which one that is here.
//   noble            the library's own pure-JS AES-GCM (cipherByName('noble')).
// The last line is one JSON object; the target is CPU per GiB <= 1.5x age's.
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { NODE_CIPHER_WORKERS } from '../scripts/node-cipher-workers.mjs'
import { nativeAeadStatus } from '../src/node-cipher/aead-native'
import { type AeadBackendName, cipherByName, nodeCipher } from '../src/node-cipher/cipher-choice'
import { encryptFile } from '../src/node-cipher/file-seal-here'
import { decryptStream, encryptStream, generateVaultKey } from '../src/vault-format'

const self = fileURLToPath(import.meta.url)
const VAULT_ID = 'bench-vault'

interface Measurement {
  /** Wall seconds of the work. */
  seconds: number
  /** Whole-process CPU seconds (user + system), null when unknown. */
  cpuSeconds: number | null
  /** CPU seconds of the work alone, start-up left out (ours: measured inside the child); null for age. */
  workCpuSeconds: number | null
  bytes: number
  maxRssMB: number | null
}

/** The child's report: what it can see of itself. */
interface ChildReport {
  seconds: number
  cpuSeconds: number
  bytes: number
  maxRssMB: number
}

/**
 * The file in pieces of 1 MiB. `reuse`: two buffers in turn, like the upload queue's reader (a piece
 * is valid until the next one is asked for; encryption allows that). Decryption keeps pieces until
 * it has used them, so it gets fresh ones, as from a download or a file stream.
 */
function* readFile(path: string, reuse: boolean): Generator<Uint8Array> {
  const fd = openSync(path, 'r')
  try {
    const buffers = [Buffer.allocUnsafeSlow(1 << 20), Buffer.allocUnsafeSlow(1 << 20)]
    for (let turn = 0; ; turn = 1 - turn) {
      const buffer = reuse ? buffers[turn]! : Buffer.allocUnsafeSlow(1 << 20)
      const n = readSync(fd, buffer, 0, 1 << 20, null)
      if (n === 0) return
      yield buffer.subarray(0, n)
    }
  } finally {
    closeSync(fd)
  }
}

/** One measurement, in a child process: the file through encryption or decryption into /dev/null. */
async function child([op, backend, parallel, input, keyHex]: string[]): Promise<void> {
  const opts = {
    vaultKey: Uint8Array.from(Buffer.from(keyHex!, 'hex')),
    vaultId: VAULT_ID,
    ...(backend === 'default'
      ? nodeCipher(parallel === 'pool')
      : cipherByName(backend as AeadBackendName, parallel === 'pool')),
  }
  const size = statSync(input!).size
  const identity = { path: 'bench.bin', size }
  const out = openSync(op === 'encrypt-to-file' ? `${input}.vault` : '/dev/null', 'w')
  const cpu = process.cpuUsage()
  const start = performance.now()
  const pieces =
    op === 'encrypt-reader'
      ? encryptFile(input!, { ...opts, identity })
      : op === 'decrypt'
        ? decryptStream(readFile(input!, false), opts)
        : encryptStream(readFile(input!, true), { ...opts, identity })
  // Written at once, so a piece is done with before the next is asked for.
  for await (const piece of pieces) writeSync(out, piece)
  closeSync(out)
  const used = process.cpuUsage(cpu)
  const report: ChildReport = {
    seconds: (performance.now() - start) / 1000,
    cpuSeconds: (used.user + used.system) / 1e6,
    bytes: size,
    maxRssMB: process.resourceUsage().maxRSS / 1024,
  }
  process.stdout.write(JSON.stringify(report))
}

let childScript = ''

/**
 * The children run a plain-node bundle of this file: tsx's loader alone would add ~70 MB of RSS.
 * The worker threads' modules go beside it.
 */
async function bundleChild(): Promise<void> {
  // In out/bench, two folders below the root like the app's bundles: aead-native.ts finds the module so.
  const dir = join(fileURLToPath(new URL('..', import.meta.url)), 'out', 'bench')
  childScript = join(dir, 'bench-crypto-child.mjs')
  // Imported here, and left out of the bundle, so the children never load esbuild.
  const { build } = await import('esbuild')
  await build({
    external: ['esbuild'],
    entryPoints: { 'bench-crypto-child': self, ...NODE_CIPHER_WORKERS },
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    logLevel: 'warning',
  })
}

// Asked for on first use, by the parent only: at module level every child ran `getconf` too, and its
// CPU (a process start) was counted in ours.
let clockTicks: number | undefined
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
    } catch {
      clockTicks = 100
    }
  }
  return clockTicks
}
/** CPU seconds of the waited-for children so far (Linux: /proc/self/stat cutime + cstime), else null. */
function childrenCpuSeconds(): number | null {
  try {
    const ticks = ticksPerSecond() // before reading: getconf is a waited-for child too
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[13]) + Number(fields[14])) / ticks
  } catch {
    return null
  }
}

/** The largest VmHWM seen while the process runs (Linux), for programs that do not report their own. */
function sampleHwm(pid: number | undefined, into: { kB: number }): () => void {
  const read = () => {
    try {
      const kB = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
      if (kB) into.kB = Math.max(into.kB, Number(kB))
    } catch {
      // gone, or not Linux
    }
  }
  const timer = setInterval(read, 10)
  return () => clearInterval(timer)
}

function run(
  command: string,
  args: string[],
): Promise<{ stdout: string; seconds: number; cpu: number | null; hwmMB: number | null }> {
  return new Promise((resolve, reject) => {
    const cpu0 = childrenCpuSeconds()
    const start = performance.now()
    const proc = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] })
    const hwm = { kB: 0 }
    const stopSampling = sampleHwm(proc.pid, hwm)
    let stdout = ''
    proc.stdout.on('data', (d) => {
      stdout += d
    })
    proc.on('error', (error) => {
      stopSampling()
      reject(error)
    })
    proc.on('exit', (code) => {
      stopSampling()
      const seconds = (performance.now() - start) / 1000
      const cpu1 = childrenCpuSeconds()
      if (code !== 0) return reject(new Error(`${command} ${args[0] ?? ''} failed (exit code ${code})`))
      resolve({
        stdout,
        seconds,
        cpu: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0,
        hwmMB: hwm.kB > 0 ? hwm.kB / 1024 : null,
      })
    })
  })
}

async function measureOurs(args: string[]): Promise<Measurement> {
  const { stdout, cpu } = await run(process.execPath, [childScript, '--child', ...args])
  const report = JSON.parse(stdout) as ChildReport
  return {
    seconds: report.seconds,
    cpuSeconds: cpu,
    workCpuSeconds: report.cpuSeconds,
    bytes: report.bytes,
    maxRssMB: report.maxRssMB,
  }
}

function writeTestFile(path: string, bytes: number): void {
  const block = randomBytes(4 << 20)
  const fd = openSync(path, 'w')
  for (let written = 0; written < bytes; ) {
    const n = Math.min(block.length, bytes - written)
    block[0] = (written >>> 22) & 0xff
    writeSync(fd, block, 0, n)
    written += n
  }
  closeSync(fd)
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

interface Contestant {
  label: string
  key: string
  measure: () => Promise<Measurement>
  results: Measurement[]
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'size-mb': { type: 'string', default: '1024' },
      'noble-size-mb': { type: 'string', default: '64' },
      rounds: { type: 'string', default: '5' },
    },
  })
  const sizeMiB = Number(values['size-mb'])
  const nobleMiB = Number(values['noble-size-mb'])
  const rounds = Math.max(1, Number(values.rounds))
  const cores = availableParallelism()
  const load0 = loadavg()
  const dir = mkdtempSync(join(tmpdir(), 'vault-bench-'))
  const big = join(dir, 'plain.bin')
  const small = join(dir, 'plain-small.bin')
  const keyHex = Buffer.from(generateVaultKey()).toString('hex')
  try {
    console.log(`Creating ${sizeMiB} MiB and ${nobleMiB} MiB test files in ${dir} ...`)
    writeTestFile(big, sizeMiB << 20)
    writeTestFile(small, nobleMiB << 20)
    await bundleChild()
    // The inputs for decryption, written once.
    await measureOurs(['encrypt-to-file', 'node', 'this-thread', big, keyHex])
    await measureOurs(['encrypt-to-file', 'noble', 'this-thread', small, keyHex])

    const age = ageSetup(dir, big)
    const poolThreads = Math.max(1, Math.min(4, cores - 1))
    const ours = (label: string, key: string, args: string[]): Contestant => ({
      label,
      key,
      measure: () => measureOurs([...args, keyHex]),
      results: [],
    })
    const contestants: Contestant[] = [
      ours(`encrypt, upload path (reader thread), ${sizeMiB} MiB`, 'encryptUploadPath', [
        'encrypt-reader',
        'default',
        'this-thread',
        big,
      ]),
      ours('encrypt, stream, this thread', 'encryptStream', ['encrypt', 'default', 'this-thread', big]),
      ours(`encrypt, stream + pool (${poolThreads} threads)`, 'encryptStreamPool', [
        'encrypt',
        'default',
        'pool',
        big,
      ]),
      ours('decrypt, stream, this thread', 'decryptStream', [
        'decrypt',
        'default',
        'this-thread',
        `${big}.vault`,
      ]),
      ours(`decrypt, stream + pool (${poolThreads} threads)`, 'decryptStreamPool', [
        'decrypt',
        'default',
        'pool',
        `${big}.vault`,
      ]),
      ours(`encrypt noble (${nobleMiB} MiB, pure JS)`, 'encryptNoble', [
        'encrypt',
        'noble',
        'this-thread',
        small,
      ]),
      ours(`decrypt noble (${nobleMiB} MiB)`, 'decryptNoble', [
        'decrypt',
        'noble',
        'this-thread',
        `${small}.vault`,
      ]),
    ]
    if (age) {
      contestants.push(
        {
          label: `age -e (X25519 + ChaCha20-Poly1305, ${sizeMiB} MiB)`,
          key: 'ageEncrypt',
          measure: age.encrypt,
          results: [],
        },
        { label: 'age -d', key: 'ageDecrypt', measure: age.decrypt, results: [] },
      )
    }
    console.log(`${rounds} rounds, each measurement once per round in a rotating order; ${cores} cores`)
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < contestants.length; k++) {
        const c = contestants[(k + round) % contestants.length]!
        c.results.push(await c.measure())
      }
      process.stdout.write(`round ${round + 1} of ${rounds} done\n`)
    }

    const summary = (c: Contestant) => {
      const cpu = c.results.map((m) => m.cpuSeconds).filter((x): x is number => x !== null)
      const work = c.results.map((m) => m.workCpuSeconds).filter((x): x is number => x !== null)
      const rss = c.results.map((m) => m.maxRssMB).filter((x): x is number => x !== null)
      const gib = c.results[0]!.bytes / 2 ** 30
      return {
        MBps: Math.round(median(c.results.map((m) => m.bytes / 1e6 / m.seconds))),
        cpuSecondsPerGiB: cpu.length ? Number((median(cpu) / gib).toFixed(3)) : null,
        workCpuSecondsPerGiB: work.length ? Number((median(work) / gib).toFixed(3)) : null,
        peakRssMB: rss.length ? Math.round(Math.max(...rss)) : null,
      }
    }
    const rows = Object.fromEntries(contestants.map((c) => [c.key, summary(c)]))
    for (const c of contestants) {
      const s = rows[c.key]!
      console.log(
        `${c.label.padEnd(52)} ${String(s.MBps).padStart(6)} MB/s  CPU ${s.cpuSecondsPerGiB?.toFixed(2) ?? '  - '} s/GiB ` +
          `(work ${s.workCpuSecondsPerGiB?.toFixed(2) ?? '  - '})  peak RSS ${s.peakRssMB ?? '-'} MB`,
      )
    }
    const ratio = (a: number | null | undefined, b: number | null | undefined) =>
      a && b ? Number((a / b).toFixed(2)) : null
    const upload = rows.encryptUploadPath!
    const ageEnc = rows.ageEncrypt
    console.log(
      JSON.stringify({
        encryptMBps: upload.MBps,
        encryptCpuSecondsPerGiB: upload.cpuSecondsPerGiB,
        peakRssMB: upload.peakRssMB,
        ageMBps: ageEnc?.MBps ?? null,
        ageCpuSecondsPerGiB: ageEnc?.cpuSecondsPerGiB ?? null,
        agePeakRssMB: ageEnc?.peakRssMB ?? null,
        cpuRatioVsAge: ratio(upload.cpuSecondsPerGiB, ageEnc?.cpuSecondsPerGiB),
        // The same without our process's start-up (~0.1 s: Node, the bundle, the reader thread).
        workCpuRatioVsAge: ratio(upload.workCpuSecondsPerGiB, ageEnc?.cpuSecondsPerGiB),
        decryptMBps: rows.decryptStream!.MBps,
        decryptCpuSecondsPerGiB: rows.decryptStream!.cpuSecondsPerGiB,
        decryptCpuRatioVsAge: ratio(rows.decryptStream!.cpuSecondsPerGiB, rows.ageDecrypt?.cpuSecondsPerGiB),
        rows,
        // What nodeCipher() and the reader thread pick on this machine.
        streamDefault: cores > 2 ? 'pool' : 'this thread',
        aead: nativeAeadStatus().inUse ? 'native' : `node:crypto (native: ${nativeAeadStatus().why})`,
        fileMiB: sizeMiB,
        nobleFileMiB: nobleMiB,
        rounds,
        cores,
        load: {
          start: load0.map((x) => Number(x.toFixed(2))),
          end: loadavg().map((x) => Number(x.toFixed(2))),
        },
        cpuMeasuredBy:
          childrenCpuSeconds() === null
            ? 'each child itself (age not measured)'
            : 'the kernel, whole process',
        targets: { cpuRatioVsAge: 1.5 },
      }),
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** age with a fresh key, encrypting the file to /dev/null, and decrypting its own output; null without age. */
function ageSetup(
  dir: string,
  input: string,
): { encrypt: () => Promise<Measurement>; decrypt: () => Promise<Measurement> } | null {
  try {
    const keyFile = join(dir, 'age-key.txt')
    execFileSync('age-keygen', ['-o', keyFile], { stdio: 'pipe' })
    const recipient = execFileSync('age-keygen', ['-y', keyFile], { encoding: 'utf8' }).trim()
    execFileSync('age', ['-r', recipient, '-o', `${input}.age`, input], { stdio: 'inherit' })
    if (!existsSync(`${input}.age`)) throw new Error('age wrote no file')
    const bytes = statSync(input).size
    const measure = async (args: string[]): Promise<Measurement> => {
      const { seconds, cpu, hwmMB } = await run('age', args)
      // age's start-up is a few ms: its whole-process CPU stands for its work too.
      return { seconds, cpuSeconds: cpu, workCpuSeconds: cpu, bytes, maxRssMB: hwmMB }
    }
    return {
      encrypt: () => measure(['-r', recipient, '-o', '/dev/null', input]),
      decrypt: () => measure(['-d', '-i', keyFile, '-o', '/dev/null', `${input}.age`]),
    }
  } catch (error) {
    console.log(`age not measured: ${(error as Error).message}`)
    return null
  }
}

if (process.argv[2] === '--child') {
  await child(process.argv.slice(3))
} else {
  await main()
}
