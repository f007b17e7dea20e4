// Throughput and memory of file encryption, per backend, against `age` on the same file.
//   npm run bench:crypto [-- --size-mb 1024 --noble-size-mb 64]
// Each measurement runs in its own plain-node child process (an esbuild bundle of this file), so peak
// RSS (process.resourceUsage().maxRSS, which covers worker threads too: they live in the same process)
// belongs to that measurement alone.
// Files stream from disk (os.tmpdir) to /dev/null. MB = 10^6 bytes. The last line is one JSON object.
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import {
  closeSync,
  createReadStream,
  createWriteStream,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
// The cipher modules only (not the index, which pulls in the QR and kit code the children do not need).
import { decryptStream, encryptStream } from '../src/main/core/crypto/file-cipher'
import { generateVaultKey } from '../src/main/core/crypto/vault-key'

const self = fileURLToPath(import.meta.url)
const VAULT_ID = 'bench-vault'

interface Measurement {
  seconds: number
  bytes: number
  maxRssMB: number
}

/** One measurement, in a child process: stream a file through encrypt or decrypt into a sink. */
async function child([op, backend, parallel, input, keyHex]: string[]): Promise<void> {
  const opts = {
    vaultKey: Uint8Array.from(Buffer.from(keyHex!, 'hex')),
    vaultId: VAULT_ID,
    backend: backend as 'node' | 'noble',
    // 'default' leaves the choice to the library (workers only with more than 2 cores).
    parallel: parallel === 'default' ? undefined : parallel === 'workers',
  }
  const sink = createWriteStream(op === 'encrypt-to-file' ? `${input}.vault` : '/dev/null')
  const start = performance.now()
  await pipeline(
    createReadStream(input!, { highWaterMark: 1 << 20 }),
    (source: AsyncIterable<Uint8Array>) =>
      op === 'decrypt'
        ? decryptStream(source, opts)
        : encryptStream(source, { ...opts, identity: { path: 'bench.bin', size: statSync(input!).size } }),
    sink,
  )
  const result: Measurement = {
    seconds: (performance.now() - start) / 1000,
    bytes: statSync(input!).size,
    maxRssMB: process.resourceUsage().maxRSS / 1024,
  }
  process.stdout.write(JSON.stringify(result))
}

let childScript = ''

/** The children run a plain-node bundle of this file: tsx's loader alone would add ~70 MB of RSS. */
async function bundleChild(dir: string): Promise<void> {
  childScript = join(dir, 'bench-crypto-child.mjs')
  // Imported here, and left out of the bundle, so the children never load esbuild.
  const { build } = await import('esbuild')
  await build({
    external: ['esbuild'],
    entryPoints: [self],
    outfile: childScript,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    logLevel: 'warning',
  })
}

function measure(args: string[]): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [childScript, '--child', ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let stdout = ''
    proc.stdout.on('data', (d) => {
      stdout += d
    })
    proc.on('error', reject)
    proc.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(stdout) as Measurement)
        : reject(new Error(`benchmark child failed (${code})`)),
    )
  })
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

const mbps = (m: Measurement) => Math.round(m.bytes / 1e6 / m.seconds)

function ageMeasurement(dir: string, input: string): Measurement | null {
  try {
    const keyFile = join(dir, 'age-key.txt')
    execFileSync('age-keygen', ['-o', keyFile], { stdio: 'pipe' })
    const recipient = execFileSync('age-keygen', ['-y', keyFile], { encoding: 'utf8' }).trim()
    const start = performance.now()
    execFileSync('age', ['-r', recipient, '-o', '/dev/null', input], { stdio: 'inherit' })
    return { seconds: (performance.now() - start) / 1000, bytes: statSync(input).size, maxRssMB: Number.NaN }
  } catch (error) {
    console.log(`age not measured: ${(error as Error).message}`)
    return null
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'size-mb': { type: 'string', default: '1024' },
      'noble-size-mb': { type: 'string', default: '64' },
    },
  })
  const sizeMiB = Number(values['size-mb'])
  const nobleMiB = Number(values['noble-size-mb'])
  const dir = mkdtempSync(join(tmpdir(), 'vault-bench-'))
  const big = join(dir, 'plain.bin')
  const small = join(dir, 'plain-small.bin')
  const keyHex = Buffer.from(generateVaultKey()).toString('hex')
  try {
    console.log(`Creating ${sizeMiB} MiB and ${nobleMiB} MiB test files in ${dir} ...`)
    writeTestFile(big, sizeMiB << 20)
    writeTestFile(small, nobleMiB << 20)
    await bundleChild(dir)

    const rows: [string, Measurement][] = []
    const run = async (label: string, args: string[]) => {
      const m = await measure([...args, keyHex])
      rows.push([label, m])
      console.log(
        `${label.padEnd(44)} ${String(mbps(m)).padStart(6)} MB/s  ${m.seconds.toFixed(2).padStart(6)} s  peak RSS ${Math.round(m.maxRssMB)} MB`,
      )
      return m
    }
    const cores = availableParallelism()
    const encDefault = await run(`encrypt node, default (${sizeMiB} MiB, ${cores} cores)`, [
      'encrypt',
      'node',
      'default',
      big,
    ])
    const encWorkers = await run(`encrypt node, worker threads (${sizeMiB} MiB)`, [
      'encrypt',
      'node',
      'workers',
      big,
    ])
    const encInline = await run(`encrypt node, one thread (${sizeMiB} MiB)`, [
      'encrypt',
      'node',
      'inline',
      big,
    ])
    await run(`encrypt node to disk (${sizeMiB} MiB, input for decrypt)`, [
      'encrypt-to-file',
      'node',
      'default',
      big,
    ])
    const decDefault = await run(`decrypt node, default (${sizeMiB} MiB)`, [
      'decrypt',
      'node',
      'default',
      `${big}.vault`,
    ])
    const decWorkers = await run(`decrypt node, worker threads (${sizeMiB} MiB)`, [
      'decrypt',
      'node',
      'workers',
      `${big}.vault`,
    ])
    const decInline = await run(`decrypt node, one thread (${sizeMiB} MiB)`, [
      'decrypt',
      'node',
      'inline',
      `${big}.vault`,
    ])
    const encNoble = await run(`encrypt noble (${nobleMiB} MiB, pure JS is slow)`, [
      'encrypt',
      'noble',
      'inline',
      small,
    ])
    await run(`encrypt noble to disk (${nobleMiB} MiB)`, ['encrypt-to-file', 'noble', 'inline', small])
    const decNoble = await run(`decrypt noble (${nobleMiB} MiB)`, [
      'decrypt',
      'noble',
      'inline',
      `${small}.vault`,
    ])
    const age = ageMeasurement(dir, big)
    if (age)
      console.log(
        `${`age -r (X25519 + ChaCha20-Poly1305, ${sizeMiB} MiB)`.padEnd(44)} ${String(mbps(age)).padStart(6)} MB/s  ${age.seconds.toFixed(2).padStart(6)} s`,
      )

    // Headline figures: the node backend as the app runs it (library default), on a 1 GiB file.
    const summary = {
      encryptMBps: mbps(encDefault),
      decryptMBps: mbps(decDefault),
      ageMBps: age ? mbps(age) : null,
      peakRssMB: Math.round(encDefault.maxRssMB),
      fileMiB: sizeMiB,
      cores,
      node: {
        peakRssDefaultDecryptMB: Math.round(decDefault.maxRssMB),
        encryptWorkersMBps: mbps(encWorkers),
        encryptOneThreadMBps: mbps(encInline),
        decryptWorkersMBps: mbps(decWorkers),
        decryptOneThreadMBps: mbps(decInline),
        peakRssWorkersMB: Math.round(encWorkers.maxRssMB),
        peakRssOneThreadMB: Math.round(encInline.maxRssMB),
        peakRssDecryptMB: Math.round(Math.max(decWorkers.maxRssMB, decInline.maxRssMB)),
      },
      noble: {
        fileMiB: nobleMiB,
        encryptMBps: mbps(encNoble),
        decryptMBps: mbps(decNoble),
        peakRssMB: Math.round(encNoble.maxRssMB),
      },
      targets: { encryptMBps: 600, peakRssMB: 150 },
    }
    console.log(JSON.stringify(summary))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[2] === '--child') {
  await child(process.argv.slice(3))
} else {
  await main()
}
