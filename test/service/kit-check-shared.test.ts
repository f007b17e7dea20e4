// Kit-check reminders and owner notices when scheduler passes run at the same moment on one database (two
// instances on PostgreSQL, two overlapping passes on SQLite): each guardian is reminded once per due
// reminder, the owner is told once, and the two reports together count each once.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccount } from '../../src/service/accounts'
import type { ServiceContext } from '../../src/service/context'
import { registerKitChecks } from '../../src/service/kit-checks'
import { listOutbox } from '../../src/service/outbox'
import { addGuardian } from '../../src/service/people'
import { runSchedulerPass } from '../../src/service/release'
import { openServiceContext } from '../../src/service/service-context'
import { createVault } from '../../src/service/vaults'
import { kitCheckCode, kitCheckCodeHash } from '../../src/vault-format/index'
import { DAY_MS } from './harness'
import { postgresUnavailableReason, startTestPostgres, type TestPostgres } from './postgres-server'

const noPostgres = postgresUnavailableReason()
let postgres: TestPostgres | undefined
const dirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'vault-kit-check-shared-'))
  dirs.push(dir)
  return dir
}
beforeAll(async () => {
  if (!noPostgres) postgres = await startTestPostgres()
})
afterAll(async () => {
  await postgres?.stop()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

interface Pair {
  a: ServiceContext
  b: ServiceContext
  advance(ms: number): void
  close(): Promise<void>
}

function movableClock() {
  let now = Date.parse('2030-01-01T00:00:00.000Z')
  return {
    clock: () => new Date(now),
    advance(ms: number) {
      now += ms
    },
  }
}

async function sqlitePair(): Promise<Pair> {
  const { clock, advance } = movableClock()
  const { ctx, db } = await openServiceContext(tempDir(), clock)
  return { a: ctx, b: { ...ctx }, advance, close: () => db.close() }
}

async function postgresPair(): Promise<Pair> {
  const { clock, advance } = movableClock()
  const postgresUrl = await postgres!.newDatabase()
  const mailKeyFile = join(tempDir(), 'mail.key')
  const a = await openServiceContext(tempDir(), clock, { postgresUrl, mailKeyFile })
  const b = await openServiceContext(tempDir(), clock, { postgresUrl, mailKeyFile })
  return {
    a: a.ctx,
    b: b.ctx,
    advance,
    close: async () => void (await Promise.all([a.db.close(), b.db.close()])),
  }
}

const BACKENDS = [
  { name: 'SQLite, two passes of one instance', open: sqlitePair, skip: false },
  { name: 'PostgreSQL, two instances', open: postgresPair, skip: Boolean(noPostgres) },
]

describe.each(BACKENDS)('$name', ({ open, skip }) => {
  it.skipIf(skip)(
    'reminds each guardian once and tells the owner once, however many passes run',
    async () => {
      const pair = await open()
      try {
        const { accountId } = await createAccount(pair.a, 'owner@example.com')
        const vaults: string[] = []
        for (const n of [1, 2, 3]) {
          const { id } = await createVault(pair.a, accountId, 'standard')
          const guardians = []
          for (const g of ['a', 'b']) {
            guardians.push(
              await addGuardian(pair.a, accountId, id, { name: `G${n}${g}`, email: `g${n}${g}@example.com` }),
            )
          }
          await registerKitChecks(pair.a, accountId, id, {
            split: 's1',
            guardians: guardians.map((g) => ({
              guardianId: g.id,
              codeHash: kitCheckCodeHash(kitCheckCode(randomBytes(33), id), id),
            })),
          })
          vaults.push(id)
        }
        const passes = async () => {
          const reports = await Promise.all([runSchedulerPass(pair.a), runSchedulerPass(pair.b)])
          return {
            reminded: reports.flatMap((r) => r.kitChecks.reminded).length,
            ownersTold: reports.flatMap((r) => r.kitChecks.ownersTold).length,
          }
        }
        expect(await passes()).toEqual({ reminded: 6, ownersTold: 0 })
        expect(await passes()).toEqual({ reminded: 0, ownersTold: 0 })
        pair.advance(30 * DAY_MS)
        expect(await passes()).toEqual({ reminded: 0, ownersTold: 6 })
        expect(await passes()).toEqual({ reminded: 0, ownersTold: 0 })
        const kinds = (await listOutbox(pair.b)).map((m) => m.kind)
        expect(kinds.filter((k) => k === 'kit_check_reminder')).toHaveLength(6)
        expect(kinds.filter((k) => k === 'kit_check_overdue')).toHaveLength(6)
        expect(await pair.b.db.get('SELECT COUNT(*) AS n FROM kit_check_links')).toEqual({ n: 6 })
      } finally {
        await pair.close()
      }
    },
  )
})
