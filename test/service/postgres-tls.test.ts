// TLS to PostgreSQL: a URL with sslmode=verify-full (and sslrootcert for a private CA) is accepted and used
// (the server reports the connection encrypted), a server whose certificate another CA signed is refused,
// and the start warns when a database on another computer is reached without checked TLS.
import { execFileSync } from 'node:child_process'
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openPostgresStore, postgresTransportProblem } from '../../src/service/postgres-store'
import { serviceConfigSchema } from '../../src/service/service-config'
import { postgresUnavailableReason, startTestPostgres, type TestPostgres } from './postgres-server'

describe('which PostgreSQL connections are protected', () => {
  it('needs nothing on this machine and checked TLS elsewhere', () => {
    expect(postgresTransportProblem('postgres://vault@127.0.0.1:5432/vault')).toBeNull()
    expect(postgresTransportProblem('postgres://vault@localhost/vault')).toBeNull()
    expect(postgresTransportProblem('postgres://vault@[::1]/vault')).toBeNull()
    expect(postgresTransportProblem('postgres://vault@x/vault?host=/run/postgresql')).toBeNull()
    expect(postgresTransportProblem('postgres://vault@db.example.org/vault?sslmode=verify-full')).toBeNull()
    expect(
      postgresTransportProblem(
        'postgres://v@db.example.org/vault?sslmode=verify-full&sslrootcert=/etc/ca.pem',
      ),
    ).toBeNull()
    expect(postgresTransportProblem('postgres://vault:pw@db.example.org/vault')).toMatch(
      /db\.example\.org is reached WITHOUT TLS.*sslmode=verify-full/,
    )
    expect(postgresTransportProblem('postgres://vault@10.0.0.5/vault?sslmode=disable')).toMatch(
      /WITHOUT TLS \(sslmode=disable\)/,
    )
    expect(postgresTransportProblem('postgres://vault@db.example.org/vault?sslmode=no-verify')).toMatch(
      /does not check the server's certificate/,
    )
    expect(postgresTransportProblem('postgres://vault@db.example.org/vault?sslmode=require')).toMatch(
      /say sslmode=verify-full/,
    )
  })

  it('the config file takes a postgres:// URL with sslmode=verify-full and sslrootcert', () => {
    const url =
      'postgres://vault:pw@db.example.org:5432/vault?sslmode=verify-full&sslrootcert=/etc/vault/ca.pem'
    const config = serviceConfigSchema.parse({
      version: 1,
      dataDir: '/var/lib/vault-service',
      listen: { host: '127.0.0.1', port: 8787 },
      publicUrl: 'https://vault.example.org',
      storage: { postgresUrl: url },
    })
    expect(config.storage?.postgresUrl).toBe(url)
  })
})

const skip = postgresUnavailableReason() !== null || Boolean(process.env.VAULT_TEST_POSTGRES_URL)
describe.skipIf(skip)('a PostgreSQL server that speaks TLS', () => {
  let server: TestPostgres
  const dir = mkdtempSync(join(tmpdir(), 'vault-pg-tls-'))
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' })

  beforeAll(async () => {
    server = await startTestPostgres()
    const admin = new pg.Client({ connectionString: await server.newDatabase() })
    await admin.connect()
    try {
      const data = (await admin.query('SHOW data_directory')).rows[0].data_directory as string
      // A private CA, the server's certificate for 127.0.0.1 signed by it, and a second CA that signed nothing.
      for (const ca of ['ca', 'other-ca']) {
        openssl(
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-keyout',
          `${ca}.key`,
          '-out',
          `${ca}.crt`,
          '-subj',
          `/CN=${ca}`,
          '-days',
          '2',
        )
      }
      writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n')
      openssl(
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        'server.key',
        '-out',
        'server.csr',
        '-subj',
        '/CN=127.0.0.1',
      )
      openssl(
        'x509',
        '-req',
        '-in',
        'server.csr',
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        'server.crt',
        '-days',
        '2',
        '-extfile',
        'san.ext',
      )
      const { uid, gid } = statSync(data)
      for (const name of ['server.crt', 'server.key']) {
        const target = join(data, name)
        writeFileSync(target, readFileSync(join(dir, name)))
        chownSync(target, uid, gid)
        chmodSync(target, 0o600)
      }
      await admin.query("ALTER SYSTEM SET ssl = 'on'")
      await admin.query('SELECT pg_reload_conf()')
    } finally {
      await admin.end()
    }
  })
  afterAll(async () => {
    await server?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('sslmode=verify-full with the private CA connects over TLS and the schema is brought up', async () => {
    const url = `${await server.newDatabase()}?sslmode=verify-full&sslrootcert=${join(dir, 'ca.crt')}`
    expect(postgresTransportProblem(url)).toBeNull()
    const store = await openPostgresStore(url, 1)
    try {
      const row = await store.get<{ ssl: boolean }>(
        'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()',
      )
      expect(row).toEqual({ ssl: true })
      expect(await store.get('SELECT version FROM schema_version')).toBeTruthy()
    } finally {
      await store.close()
    }
  })

  it('a certificate from another CA is refused, saying which database', async () => {
    const url = `${await server.newDatabase()}?sslmode=verify-full&sslrootcert=${join(dir, 'other-ca.crt')}`
    await expect(openPostgresStore(url, 1)).rejects.toThrow(
      /cannot use the PostgreSQL database at postgres:\/\/vault@127\.0\.0\.1:\d+\/\w+\?sslmode=verify-full.*certificate/,
    )
  })
})
