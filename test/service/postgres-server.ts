// A throwaway PostgreSQL server for the tests of the shared service: Debian's postgresql binaries, a new
// cluster in a temp folder, on a free loopback port, removed afterwards. VAULT_TEST_POSTGRES_URL points the
// tests at an existing server instead (each test file then gets a database of its own).
import { execFileSync, spawn } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

export interface TestPostgres {
  /** A fresh, empty database on the server. */
  newDatabase(): Promise<string>
  stop(): Promise<void>
}

const POSTGRES_ROOT = '/usr/lib/postgresql'

/** Debian's PostgreSQL bin folder, newest version first; null when PostgreSQL is not installed. */
export function postgresBinDir(): string | null {
  if (!existsSync(POSTGRES_ROOT)) return null
  const versions = readdirSync(POSTGRES_ROOT)
    .filter((name) => existsSync(join(POSTGRES_ROOT, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] ? join(POSTGRES_ROOT, versions[0], 'bin') : null
}

/** Why the PostgreSQL tests cannot run here, or null when they can. */
export function postgresUnavailableReason(): string | null {
  if (process.env.VAULT_TEST_POSTGRES_URL || postgresBinDir()) return null
  return 'skipped: PostgreSQL is not installed (apt-get install postgresql, as .ci/run does), and VAULT_TEST_POSTGRES_URL is not set'
}

export async function startTestPostgres(): Promise<TestPostgres> {
  const existing = process.env.VAULT_TEST_POSTGRES_URL
  if (existing) return onServer(existing, async () => {})
  const bin = postgresBinDir()
  if (!bin) throw new Error(postgresUnavailableReason()!)
  const dir = mkdtempSync(join(tmpdir(), 'vault-pg-'))
  // PostgreSQL refuses to run as root: as root, the cluster belongs to Debian's postgres user. The
  // processes are started as that user directly (not through runuser), so a signal reaches the server.
  const owner: { uid?: number; gid?: number } =
    process.getuid?.() === 0
      ? {
          uid: Number(execFileSync('id', ['-u', 'postgres']).toString()),
          gid: Number(execFileSync('id', ['-g', 'postgres']).toString()),
        }
      : {}
  if (owner.uid !== undefined && owner.gid !== undefined) chownSync(dir, owner.uid, owner.gid)
  const data = join(dir, 'data')
  execFileSync(join(bin, 'initdb'), ['-D', data, '-U', 'vault', '--auth=trust', '-E', 'UTF8', '--no-sync'], {
    stdio: 'ignore',
    ...owner,
  })
  const port = await freePort()
  const args = [
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    dir,
    '-h',
    '127.0.0.1',
    '-c',
    'fsync=off',
    '-c',
    'max_connections=200',
  ]
  const server = spawn(join(bin, 'postgres'), args, { stdio: ['ignore', 'ignore', 'pipe'], ...owner })
  let log = ''
  server.stderr.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000)
  })
  const url = `postgres://vault@127.0.0.1:${port}/postgres`
  const deadline = Date.now() + 20_000
  for (;;) {
    const client = new pg.Client({ connectionString: url })
    try {
      await client.connect()
      await client.end()
      break
    } catch (error) {
      await client.end().catch(() => {})
      if (server.exitCode !== null || Date.now() > deadline) {
        server.kill('SIGKILL')
        throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${log}`)
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  return onServer(url, async () => {
    const exited = new Promise((resolve) => server.once('exit', resolve))
    // Fast shutdown: open connections are cut, nothing needs to be kept.
    server.kill('SIGINT')
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))])
    if (server.exitCode === null) server.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })
}

function onServer(url: string, stop: () => Promise<void>): TestPostgres {
  let count = 0
  return {
    async newDatabase() {
      const name = `vault_test_${process.pid}_${Date.now()}_${++count}`
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        await client.query(`CREATE DATABASE ${name}`)
      } finally {
        await client.end()
      }
      const target = new URL(url)
      target.pathname = `/${name}`
      return target.toString()
    },
    stop,
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}
