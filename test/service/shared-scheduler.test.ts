// Scheduler passes and mail deliveries running at the same moment on one database, as the instances of a
// shared service do (PostgreSQL), or as two overlapping ticks of one service do (SQLite): each release
// starts once, each alert and reminder goes out once, each release completes once, each report counts
// only what its own pass did, and each message reaches the SMTP server once.
import { mkdtempSync, rmSync } from 'node:fs'
import { type AddressInfo, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccount } from '../../src/service/accounts'
import type { ServiceContext } from '../../src/service/context'
import { CLAIM_LEASE_MS, listOutbox, MailDelivery, queueMail } from '../../src/service/outbox'
import { addGuardian, addHeir } from '../../src/service/people'
import { configureRelease, runSchedulerPass, type TickReport } from '../../src/service/release'
import { openServiceContext } from '../../src/service/service-context'
import { createVault } from '../../src/service/vaults'
import { type Mailbox, startMailbox } from '../e2e/support/loopback-services'
import { DAY_MS } from './harness'
import { postgresUnavailableReason, startTestPostgres, type TestPostgres } from './postgres-server'

const noPostgres = postgresUnavailableReason()
if (noPostgres) console.warn(`[shared-scheduler.test] PostgreSQL cases ${noPostgres}`)

const MINUTE_MS = 60_000
const FROM = 'Vault Service <vault@example.org>'

let postgres: TestPostgres | undefined
let mailbox: Mailbox
const dirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'vault-shared-scheduler-'))
  dirs.push(dir)
  return dir
}

beforeAll(async () => {
  mailbox = await startMailbox()
  if (!noPostgres) postgres = await startTestPostgres()
})
afterAll(async () => {
  await mailbox?.close()
  await postgres?.stop()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** Two contexts on one database and one movable clock. */
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

/**
 * SQLite serves one instance (the data directory is locked to it), so its case is two overlapping passes of
 * that instance: two contexts on its one store, whose reads interleave and whose transactions take turns.
 */
async function sqlitePair(): Promise<Pair> {
  const { clock, advance } = movableClock()
  const { ctx, db } = await openServiceContext(tempDir(), clock)
  return { a: ctx, b: { ...ctx }, advance, close: () => db.close() }
}

/** Two instances: each its own data directory and connection pool, one PostgreSQL database. */
async function postgresPair(): Promise<Pair> {
  const { clock, advance } = movableClock()
  const postgresUrl = await postgres!.newDatabase()
  // Instances sharing a database share its mail key (outbox bodies are sealed with it).
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

/** Owner with three weekly dead man's switches (two heirs and a guardian each) and one monthly one. */
async function setUpVaults(ctx: ServiceContext) {
  const { accountId } = await createAccount(ctx, 'owner@example.com')
  const weekly: string[] = []
  for (const n of [1, 2, 3]) {
    const { id } = await createVault(ctx, accountId, 'standard')
    await configureRelease(ctx, accountId, id, {
      trigger: 'dead_man_switch',
      config: { checkInFrequency: 'weekly' },
    })
    await addGuardian(ctx, accountId, id, { name: `Gina ${n}`, email: `gina${n}@example.com` })
    await addHeir(ctx, accountId, id, { name: `Hana ${n}`, email: `hana${n}@example.com` })
    await addHeir(ctx, accountId, id, { name: `Hugo ${n}`, email: `hugo${n}@example.com` })
    weekly.push(id)
  }
  const { id: monthly } = await createVault(ctx, accountId, 'standard')
  await configureRelease(ctx, accountId, monthly, {
    trigger: 'dead_man_switch',
    config: { checkInFrequency: 'monthly' },
  })
  return { weekly, monthly }
}

/** Both passes at the same moment; what the two reports say together, sorted. */
async function passesAtOnce(pair: Pair) {
  const reports: TickReport[] = await Promise.all([runSchedulerPass(pair.a), runSchedulerPass(pair.b)])
  const all = <T>(pick: (r: TickReport) => T[], key: (item: T) => string) =>
    reports.flatMap(pick).map(key).sort()
  return {
    started: all(
      (r) => r.releasesStarted,
      (s) => s.vaultId,
    ),
    sent: all(
      (r) => r.alertsSent,
      (s) => `${s.vaultId} day ${s.day}`,
    ),
    skipped: all(
      (r) => r.alertsSkipped,
      (s) => `${s.vaultId} day ${s.day}`,
    ),
    released: all(
      (r) => r.released,
      (s) => `${s.vaultId} heirs ${s.heirsNotified}`,
    ),
    reminded: all(
      (r) => r.remindersSent,
      (s) => s.vaultId,
    ),
  }
}

const each = (vaults: string[], what: (vaultId: string) => string) => vaults.map(what).sort()

/** Messages of each kind per vault, from the outbox itself. */
async function kindsByVault(ctx: ServiceContext): Promise<Record<string, Record<string, number>>> {
  const counts: Record<string, Record<string, number>> = {}
  for (const m of await listOutbox(ctx)) {
    const perVault = counts[m.vaultId ?? '-'] ?? {}
    perVault[m.kind] = (perVault[m.kind] ?? 0) + 1
    counts[m.vaultId ?? '-'] = perVault
  }
  return counts
}

describe.each(BACKENDS)('$name', ({ open, skip }) => {
  it.skipIf(skip)(
    'passes run at once fire each release, alert, reminder and completion once, and report it once',
    async () => {
      const pair = await open()
      try {
        const { weekly, monthly } = await setUpVaults(pair.a)

        // Day 7, a minute past the weekly deadlines: three releases start, each with its day-0 alert.
        pair.advance(7 * DAY_MS + MINUTE_MS)
        let together = await passesAtOnce(pair)
        expect(together).toEqual({
          started: [...weekly].sort(),
          sent: each(weekly, (v) => `${v} day 0`),
          skipped: [],
          released: [],
          reminded: [],
        })

        // Day 3 of the releases.
        pair.advance(3 * DAY_MS)
        together = await passesAtOnce(pair)
        expect(together).toEqual({
          started: [],
          sent: each(weekly, (v) => `${v} day 3`),
          skipped: [],
          released: [],
          reminded: [],
        })

        // Day 21 (days 7 and 14 passed unsent) and two days before the monthly deadline: its reminder.
        pair.advance(18 * DAY_MS)
        together = await passesAtOnce(pair)
        expect(together).toEqual({
          started: [],
          sent: each(weekly, (v) => `${v} day 21`),
          skipped: [...each(weekly, (v) => `${v} day 14`), ...each(weekly, (v) => `${v} day 7`)].sort(),
          released: [],
          reminded: [monthly],
        })

        // Past the 30 days: the three releases complete; the monthly deadline has passed, its release starts.
        pair.advance(10 * DAY_MS)
        together = await passesAtOnce(pair)
        expect(together).toEqual({
          started: [monthly],
          sent: [`${monthly} day 0`],
          skipped: each(weekly, (v) => `${v} day 28`),
          released: each(weekly, (v) => `${v} heirs 2`),
          reminded: [],
        })

        // The database agrees: one release per vault, one token per heir, one message per event.
        const releases = await pair.b.db.all<{ vault_id: string; released: number }>(
          `SELECT vault_id, CASE WHEN released_at IS NULL THEN 0 ELSE 1 END AS released FROM releases
             ORDER BY vault_id`,
        )
        expect(releases).toEqual(
          [...weekly.map((v) => ({ vault_id: v, released: 1 })), { vault_id: monthly, released: 0 }].sort(
            (x, y) => (x.vault_id < y.vault_id ? -1 : 1),
          ),
        )
        expect(await pair.b.db.get('SELECT COUNT(*) AS n FROM heir_tokens')).toEqual({ n: 6 })
        const kinds = await kindsByVault(pair.b)
        for (const vaultId of weekly) {
          expect(kinds[vaultId]).toEqual({
            guardian_invitation: 1,
            contestation_alert_day_0: 1,
            contestation_alert_day_3: 1,
            contestation_alert_day_21: 1,
            heir_access: 2,
            // The guardian learns of the start once, like the owner.
            release_started_guardian: 1,
          })
        }
        expect(kinds[monthly]).toEqual({ check_in_reminder: 1, contestation_alert_day_0: 1 })
      } finally {
        await pair.close()
      }
    },
  )

  it.skipIf(skip)(
    'two deliveries at once send each message once; a claim that ran out lets the other send',
    async () => {
      const pair = await open()
      const smtp = `smtp://127.0.0.1:${mailbox.port}`
      const mailA = new MailDelivery(pair.a, smtp, FROM)
      const mailB = new MailDelivery(pair.b, smtp, FROM)
      try {
        mailbox.received.length = 0
        for (let n = 1; n <= 12; n++) {
          await queueMail(pair.a, {
            vaultId: null,
            kind: 'note',
            to: `g${n}@example.com`,
            subject: `Message ${n}`,
            body: `hello ${n}`,
          })
        }

        const [byA, byB] = await Promise.all([mailA.deliverPending(), mailB.deliverPending()])
        expect(byA + byB).toBe(12)
        // Both took part: the claims, not the order of the passes, kept them apart.
        expect(byA).toBeGreaterThan(0)
        expect(byB).toBeGreaterThan(0)
        expect(mailbox.received.map((m) => m.to.join()).sort()).toEqual(
          Array.from({ length: 12 }, (_, i) => `g${i + 1}@example.com`).sort(),
        )
        for (const message of await listOutbox(pair.b)) {
          expect(message).toMatchObject({ sentAt: expect.any(String), attempts: 1, lastError: null })
        }
        expect(
          await pair.a.db.get(
            'SELECT COUNT(*) AS n FROM outbox WHERE claimed_by IS NOT NULL OR claimed_until IS NOT NULL',
          ),
        ).toEqual({ n: 0 })

        // An instance claimed a message and stopped before sending it: the others leave it until the claim
        // runs out, then one of them sends it.
        await queueMail(pair.a, {
          vaultId: null,
          kind: 'note',
          to: 'late@example.com',
          subject: 'Left by a stopped instance',
          body: 'hello',
        })
        await pair.a.db.run(
          "UPDATE outbox SET claimed_by = 'mail_stopped', claimed_until = ? WHERE to_address = 'late@example.com'",
          new Date(pair.a.clock().getTime() + CLAIM_LEASE_MS).toISOString(),
        )
        expect(await Promise.all([mailA.deliverPending(), mailB.deliverPending()])).toEqual([0, 0])
        expect(mailbox.received.filter((m) => m.to.includes('late@example.com'))).toEqual([])
        pair.advance(CLAIM_LEASE_MS + 1_000)
        const late = await Promise.all([mailA.deliverPending(), mailB.deliverPending()])
        expect(late[0] + late[1]).toBe(1)
        expect(mailbox.received.filter((m) => m.to.includes('late@example.com'))).toHaveLength(1)
      } finally {
        mailA.close()
        mailB.close()
        await pair.close()
      }
    },
  )

  it.skipIf(skip)('a failed send lets go of its claim and is retried on schedule', async () => {
    const pair = await open()
    // Nothing listens on this port: every send fails.
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const deadPort = (probe.address() as AddressInfo).port
    await new Promise<void>((resolve) => probe.close(() => resolve()))
    const failing = new MailDelivery(pair.a, `smtp://127.0.0.1:${deadPort}`, FROM)
    const working = new MailDelivery(pair.b, `smtp://127.0.0.1:${mailbox.port}`, FROM)
    try {
      mailbox.received.length = 0
      await queueMail(pair.a, {
        vaultId: null,
        kind: 'note',
        to: 'retry@example.com',
        subject: 'Retried',
        body: 'hello',
      })
      expect(await failing.deliverPending()).toBe(0)
      const row = await pair.b.db.get<Record<string, unknown>>(
        "SELECT attempts, next_attempt_at, claimed_by, claimed_until FROM outbox WHERE to_address = 'retry@example.com'",
      )
      expect(row).toEqual({
        attempts: 1,
        next_attempt_at: new Date(pair.a.clock().getTime() + 60_000).toISOString(),
        claimed_by: null,
        claimed_until: null,
      })
      // Not before its next attempt, by any instance.
      expect(await working.deliverPending()).toBe(0)
      pair.advance(60_000)
      expect(await working.deliverPending()).toBe(1)
      expect(mailbox.received.filter((m) => m.to.includes('retry@example.com'))).toHaveLength(1)
    } finally {
      failing.close()
      working.close()
      await pair.close()
    }
  })
})
