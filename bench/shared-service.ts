// Benchmark of the Vault Service run as several instances on one PostgreSQL (issue 16), each instance a
// child process as in production, on this one machine:
//   1. authenticated GET /api/vault/:id requests per second of a pair of instances sharing PostgreSQL
//      (one autocannon load per instance, at once) against one SQLite instance, in interleaved rounds
//      (`--rounds=N`, default 3), medians compared, with the CPU time each side used per request;
//   2. 10 parallel uploads spread over both instances against a balance that pays for exactly 5;
//   3. a scheduler tick run by both instances at the same moment over vaults whose releases are due.
// The last line printed is one JSON object with the figures.
import { type ChildProcess, execFile } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { adminOperations } from '../src/service/admin'
import { openServiceContext } from '../src/service/service-context'
import { uploadCostCredits } from '../src/shared/api'
import { startTestPostgres } from '../test/service/postgres-server'
import { buildServiceCli, serveChild } from '../test/service/service-child'
import { autocannon } from './autocannon'

const run = promisify(execFile)
const roundsArg = process.argv.find((a) => a.startsWith('--rounds='))
const ROUNDS = roundsArg ? Number(roundsArg.slice(9)) : 3
const SECONDS = 8
const CONNECTIONS = 20
const DUE_RELEASES = 100

/** A `serve` child on a free port, rate limits lifted (this measures the service, not its limits). */
async function serve(cli: string, args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const started = serveChild(cli, '--port', '0', '--no-rate-limits', ...args)
  // Its log goes where this run's goes.
  started.child.stderr!.pipe(process.stderr)
  return { child: started.child, url: await started.url }
}

async function admin(cli: string, ...args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, [cli, 'admin', ...args])
  const result = JSON.parse(stdout)
  if (result.error) throw new Error(`admin ${args[0]}: ${result.error}`)
  return result
}

function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/**
 * CPU seconds of the PostgreSQL server: its live processes, plus what its ended backends used (counted in
 * the postmaster's children times), so a connection closed mid-round is not lost.
 */
function postgresCpu(): number {
  let total = 0
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
      total += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100
    } catch {}
  }
  return total
}

type Setup = 'sqlite' | 'postgresOne' | 'postgresPair'
interface Target {
  url: string
  key: string
  vaultId: string
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

async function load(targets: Target[]) {
  const results = await Promise.all(
    targets.map((target) =>
      autocannon({
        url: `${target.url}/api/vault/${target.vaultId}`,
        headers: { 'x-api-key': target.key },
        connections: Math.ceil(CONNECTIONS / targets.length),
        duration: SECONDS,
      }),
    ),
  )
  return {
    reqPerSec: results.reduce((sum, r) => sum + r.requests.average, 0),
    total: results.reduce((sum, r) => sum + r.requests.total, 0),
    p99Ms: Math.max(...results.map((r) => r.latency.p99)),
    failures: results.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
  }
}

async function main(): Promise<void> {
  const temp = mkdtempSync(join(tmpdir(), 'vault-shared-bench-'))
  const cli = await buildServiceCli()
  const postgres = await startTestPostgres()
  const children: ChildProcess[] = []
  try {
    const postgresUrl = await postgres.newDatabase()
    const blobs = join(temp, 'shared-blobs')
    const sqliteDir = join(temp, 'sqlite')
    const shared = ['--postgres-url', postgresUrl, '--blobs-dir', blobs]
    const instanceDirs = [join(temp, 'instance-a'), join(temp, 'instance-b')]

    // Accounts and vaults, made with the admin CLI as an operator would.
    const single = await admin(cli, 'create-account', '--email', 'bench@example.com', '--data-dir', sqliteDir)
    const singleVault = await admin(
      cli,
      'create-vault',
      '--account',
      single.accountId,
      '--data-dir',
      sqliteDir,
    )
    const owner = await admin(
      cli,
      'create-account',
      '--email',
      'bench@example.com',
      '--data-dir',
      instanceDirs[0]!,
      ...shared,
    )
    const ownerVault = await admin(
      cli,
      'create-vault',
      '--account',
      owner.accountId,
      '--data-dir',
      instanceDirs[0]!,
      ...shared,
    )

    const sqlite = await serve(cli, ['--data-dir', sqliteDir])
    const first = await serve(cli, ['--data-dir', instanceDirs[0]!, ...shared])
    // Instances sharing a database share its mail key (the outbox is sealed with the key the first one
    // made), so the second gets a copy, as an operator gives it.
    mkdirSync(instanceDirs[1]!, { recursive: true })
    copyFileSync(join(instanceDirs[0]!, 'mail.key'), join(instanceDirs[1]!, 'mail.key'))
    const pair = [first, await serve(cli, ['--data-dir', instanceDirs[1]!, ...shared])]
    children.push(sqlite.child, ...pair.map((p) => p.child))

    // 1. Reads: one SQLite instance, one instance on PostgreSQL alone, and the pair on it.
    console.log(
      `machine: ${availableParallelism()} cores, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    )
    const setups: Record<Setup, { pids: number[]; postgres: boolean; targets: Target[] }> = {
      sqlite: {
        pids: [sqlite.child.pid!],
        postgres: false,
        targets: [{ url: sqlite.url, key: single.apiKey, vaultId: singleVault.vaultId }],
      },
      postgresOne: {
        pids: [pair[0]!.child.pid!],
        postgres: true,
        targets: [{ url: pair[0]!.url, key: owner.apiKey, vaultId: ownerVault.vaultId }],
      },
      postgresPair: {
        pids: pair.map((p) => p.child.pid!),
        postgres: true,
        targets: pair.map((p) => ({ url: p.url, key: owner.apiKey, vaultId: ownerVault.vaultId })),
      },
    }
    const cpuOf = (setup: Setup) =>
      setups[setup].pids.reduce((sum, pid) => sum + cpuSecondsOf(pid), 0) +
      (setups[setup].postgres ? postgresCpu() : 0)
    const rounds: Record<Setup, { reqPerSec: number; cpuUs: number }>[] = []
    const names = Object.keys(setups) as Setup[]
    for (let round = 0; round < ROUNDS; round++) {
      const measured = {} as Record<Setup, { reqPerSec: number; cpuUs: number }>
      // Each round in another order, so drift of the machine's load does not favour one setup.
      for (let i = 0; i < names.length; i++) {
        const setup = names[(i + round) % names.length]!
        const cpuBefore = cpuOf(setup)
        const result = await load(setups[setup].targets)
        const cpuUs = ((cpuOf(setup) - cpuBefore) * 1e6) / result.total
        if (result.failures) throw new Error(`${setup}: ${result.failures} requests failed`)
        console.log(
          `round ${round + 1} ${setup}: ${result.reqPerSec.toFixed(0)} req/s, p99 ${result.p99Ms} ms, ` +
            `${cpuUs.toFixed(0)} µs CPU per request (service${setups[setup].postgres ? 's and PostgreSQL' : ''})`,
        )
        measured[setup] = { reqPerSec: result.reqPerSec, cpuUs }
      }
      rounds.push(measured)
    }
    const med = (setup: Setup, field: 'reqPerSec' | 'cpuUs') =>
      Math.round(median(rounds.map((r) => r[setup][field])))

    // 2. Ten uploads racing over both instances for five uploads' worth of credits.
    const racer = await admin(
      cli,
      'create-account',
      '--email',
      'race@example.com',
      '--data-dir',
      instanceDirs[0]!,
      ...shared,
    )
    const racerVault = await admin(
      cli,
      'create-vault',
      '--account',
      racer.accountId,
      '--data-dir',
      instanceDirs[0]!,
      ...shared,
    )
    const size = 1_000_000
    const cost = uploadCostCredits(size)
    const spendable = 5 * cost
    // The trial's 100 credits brought down to exactly five uploads' worth by one upload first.
    const fillerSize = Math.floor(((100 - spendable) * 1e9) / 4650)
    if (uploadCostCredits(fillerSize) !== 100 - spendable)
      throw new Error('filler size does not cost what is needed')
    const post = (url: string, bytes: number, name: string) => {
      const form = new FormData()
      form.append('filename', name)
      form.append('file', new Blob([new Uint8Array(bytes).fill(name.length)]), 'blob.bin')
      return fetch(`${url}/api/vault/${racerVault.vaultId}/asset`, {
        method: 'POST',
        headers: { 'x-api-key': racer.apiKey },
        body: form,
      })
    }
    if ((await post(pair[0]!.url, fillerSize, 'filler')).status !== 201)
      throw new Error('the filler upload failed')
    const started = performance.now()
    const statuses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post(pair[i % 2]!.url, size, `racer-${'x'.repeat(i)}`).then((r) => r.status),
      ),
    )
    const raceMs = performance.now() - started
    const vault = (await (
      await fetch(`${pair[1]!.url}/api/vault/${racerVault.vaultId}`, {
        headers: { 'x-api-key': racer.apiKey },
      })
    ).json()) as { data: { creditsBalance: number; assetCount: number } }
    const stored = statuses.filter((s) => s === 201).length
    console.log(
      `uploads: ${stored} stored, ${statuses.filter((s) => s === 402).length} refused (402) in ${raceMs.toFixed(0)} ms; ` +
        `balance ${vault.data.creditsBalance} (expected 0), assets ${vault.data.assetCount} (expected 6)`,
    )

    // 3. Due releases, ticked by both instances' schedulers at the same moment (as two `admin tick` runs).
    // Set up in this process (the admin operations on the shared database); many vaults, so the two passes overlap.
    const dueVaults: string[] = []
    const { ctx, db } = await openServiceContext(instanceDirs[1]!, undefined, { postgresUrl })
    const operator = adminOperations(ctx)
    for (let i = 0; i < DUE_RELEASES; i++) {
      const account = await operator.createAccount({ email: `due${i}@example.com` })
      const { vaultId } = await operator.createVault({ account: account.accountId, preset: 'standard' })
      const heir = await fetch(`${pair[i % 2]!.url}/api/vault/${vaultId}/heir`, {
        method: 'POST',
        headers: { 'x-api-key': account.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Heir ${i}`, email: `heir${i}@example.com` }),
      })
      if (heir.status !== 201) throw new Error(`adding an heir failed: ${heir.status}`)
      await operator.startRelease({ vault: vaultId })
      dueVaults.push(vaultId)
    }
    await db.close()
    // Each instance's scheduler pass, at the same moment: two contexts with their own connection pools, as
    // two instances' timers would run them (a pass is quicker than starting a process, so two `admin tick`
    // processes would rarely overlap).
    const later = new Date(Date.now() + 31 * 86_400_000)
    const instances = await Promise.all(
      instanceDirs.map((dir) => openServiceContext(dir, () => later, { postgresUrl })),
    )
    const reports = await Promise.all(instances.map(({ ctx }) => adminOperations(ctx).tick({ now: later })))
    await Promise.all(instances.map(({ db }) => db.close()))
    const released = reports.flatMap((report) => report.released.map((r) => r.vaultId))
    const outbox = await admin(cli, 'outbox', '--data-dir', instanceDirs[0]!, ...shared)
    const heirMails = outbox.messages.filter(
      (m: { kind: string; vaultId: string }) => m.kind === 'heir_access' && dueVaults.includes(m.vaultId),
    ).length
    console.log(
      `scheduler: ${dueVaults.length} due releases; released by instance A ${reports[0]!.released.length}, by B ${reports[1]!.released.length}; ` +
        `distinct ${new Set(released).size}; heir e-mails ${heirMails}`,
    )

    const figures = {
      cores: availableParallelism(),
      rounds: ROUNDS,
      secondsPerRound: SECONDS,
      connections: CONNECTIONS,
      getReqPerSec: {
        sqlite: med('sqlite', 'reqPerSec'),
        postgresOne: med('postgresOne', 'reqPerSec'),
        postgresPair: med('postgresPair', 'reqPerSec'),
      },
      cpuUsPerGet: {
        sqlite: med('sqlite', 'cpuUs'),
        postgresOne: med('postgresOne', 'cpuUs'),
        postgresPair: med('postgresPair', 'cpuUs'),
      },
      oneOverSqlite: Number((med('postgresOne', 'reqPerSec') / med('sqlite', 'reqPerSec')).toFixed(2)),
      pairOverSqlite: Number((med('postgresPair', 'reqPerSec') / med('sqlite', 'reqPerSec')).toFixed(2)),
      pairOverOnePostgres: Number(
        (med('postgresPair', 'reqPerSec') / med('postgresOne', 'reqPerSec')).toFixed(2),
      ),
      uploads: {
        parallel: 10,
        stored,
        refused: statuses.filter((s) => s === 402).length,
        balance: vault.data.creditsBalance,
        assetCount: vault.data.assetCount,
      },
      scheduler: {
        due: dueVaults.length,
        releasedByA: reports[0]!.released.length,
        releasedByB: reports[1]!.released.length,
        distinct: new Set(released).size,
        heirMails,
      },
    }
    console.log(JSON.stringify(figures))
    const ok =
      stored === 5 &&
      vault.data.creditsBalance === 0 &&
      released.length === dueVaults.length &&
      new Set(released).size === dueVaults.length &&
      heirMails === dueVaults.length
    if (!ok) {
      console.error('the shared service broke a promise: see the figures above')
      process.exitCode = 1
    }
  } finally {
    for (const child of children) child.kill('SIGTERM')
    await new Promise((resolve) => setTimeout(resolve, 500))
    await postgres.stop()
    rmSync(temp, { recursive: true, force: true })
  }
}

await main()
