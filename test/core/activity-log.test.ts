// The activity history: per vault, newest first with paging and kind filters, append-only (the table
// refuses changes), kept across restarts, a damaged file set aside with a sentence for the owner, and
// exports as CSV and JSON.
import { existsSync } from 'node:fs'
import { mkdir, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  ACTIVITY_DB_FILE,
  ActivityLog,
  CSV_COLUMNS,
  describeActivity,
  exportActivityText,
} from '../../src/main/core/vaults/activity-log'
import { tempDir } from './service-fixture'

let dir: { path: string; remove: () => Promise<void> }
let clock = Date.parse('2026-03-01T09:00:00.000Z')
const now = () => clock

beforeEach(async () => {
  dir = await tempDir('vault-activity-')
  clock = Date.parse('2026-03-01T09:00:00.000Z')
})
afterEach(async () => {
  await dir.remove()
})

describe('activity log', () => {
  it('lists a vault newest first, pages, filters by kind and keeps vaults apart', async () => {
    const log = await ActivityLog.open(dir.path, now)
    for (let i = 0; i < 5; i++) {
      clock += 60_000
      log.append({ vaultId: 'v1', kind: 'check-in', source: 'window', detail: { note: `n${i}` } })
    }
    log.append({ vaultId: 'v1', kind: 'guardian-added', source: 'window', detail: { person: 'Alice' } })
    log.append({ vaultId: 'v2', kind: 'upload', source: 'window', detail: { files: 3 } })

    const first = log.list('v1', { limit: 4, offset: 0 })
    expect(first.total).toBe(6)
    expect(first.items.map((e) => e.kind)).toEqual(['guardian-added', 'check-in', 'check-in', 'check-in'])
    expect(first.items[1]!.detail.note).toBe('n4')
    const second = log.list('v1', { limit: 4, offset: 4 })
    expect(second.items.map((e) => e.detail.note)).toEqual(['n1', 'n0'])

    const checkIns = log.list('v1', { kinds: ['check-in'], limit: 10, offset: 0 })
    expect(checkIns.total).toBe(5)
    expect(checkIns.items.every((e) => e.kind === 'check-in')).toBe(true)
    expect(log.list('v2', { limit: 10, offset: 0 }).items.map((e) => e.kind)).toEqual(['upload'])
    expect(log.list('v3', { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 })
    expect(log.latest('v1', 'check-in')?.detail.note).toBe('n4')
    expect(log.latest('v1', 'check-in', 'unlock')).toBeUndefined()
    log.close()
  })

  it('records the time, the source and the detail, and keeps them across a restart', async () => {
    const log = await ActivityLog.open(dir.path, now)
    const entry = log.append({
      vaultId: 'v1',
      kind: 'check-in',
      source: 'unlock',
      detail: { nextCheckInDue: '2026-03-31T09:00:00.000Z' },
    })
    expect(entry).toMatchObject({ at: '2026-03-01T09:00:00.000Z', kind: 'check-in', source: 'unlock' })
    log.close()
    const again = await ActivityLog.open(dir.path, now)
    expect(again.problem).toBeUndefined()
    expect(again.all('v1')).toEqual([entry])
    again.close()
  })

  it('adds an event seen twice (same ref) once', async () => {
    const log = await ActivityLog.open(dir.path, now)
    expect(log.append({ vaultId: 'v1', kind: 'released', source: 'service', ref: 'released' })).toBeDefined()
    expect(
      log.append({ vaultId: 'v1', kind: 'released', source: 'service', ref: 'released' }),
    ).toBeUndefined()
    // The same ref on another vault is another event.
    expect(log.append({ vaultId: 'v2', kind: 'released', source: 'service', ref: 'released' })).toBeDefined()
    expect(log.list('v1', { limit: 10, offset: 0 }).total).toBe(1)
    log.close()
  })

  it('is append-only: the database itself refuses to change or delete an entry', async () => {
    const log = await ActivityLog.open(dir.path, now)
    log.append({ vaultId: 'v1', kind: 'check-in', source: 'window' })
    log.close()
    const db = new Database(join(dir.path, ACTIVITY_DB_FILE))
    expect(() => db.prepare("UPDATE activity SET kind = 'released'").run()).toThrow(/append-only/)
    expect(() => db.prepare('DELETE FROM activity').run()).toThrow(/append-only/)
    db.close()
    const again = await ActivityLog.open(dir.path, now)
    expect(again.all('v1').map((e) => e.kind)).toEqual(['check-in'])
    again.close()
  })

  it('sets a damaged file aside, says so, and keeps recording in a new one', async () => {
    await writeFile(join(dir.path, ACTIVITY_DB_FILE), 'this is not a database, it is '.repeat(200))
    const log = await ActivityLog.open(dir.path, now)
    expect(log.persistent).toBe(true)
    expect(log.problem).toMatch(/activity history on this computer could not be read/)
    expect(log.problem).toMatch(/a new history was started/)
    const aside = (await readdir(dir.path)).filter((f) => f.startsWith(`${ACTIVITY_DB_FILE}.damaged-`))
    expect(aside).toHaveLength(1)
    expect(log.problem).toContain(aside[0])
    log.append({ vaultId: 'v1', kind: 'check-in', source: 'window' })
    log.close()
    const again = await ActivityLog.open(dir.path, now)
    expect(again.problem).toBeUndefined()
    expect(again.all('v1')).toHaveLength(1)
    again.close()
  })

  it('keeps working in memory when the folder cannot hold the file, and says where to look', async () => {
    // A directory where the database file should be: SQLite cannot open it.
    const blocked = join(dir.path, 'blocked')
    await mkdir(join(blocked, ACTIVITY_DB_FILE), { recursive: true })
    const log = await ActivityLog.open(blocked, now)
    expect(log.persistent).toBe(false)
    expect(log.problem).toMatch(/could not be opened/)
    expect(log.problem).toMatch(/only until the app closes/)
    expect(log.append({ vaultId: 'v1', kind: 'check-in', source: 'window' })).toBeDefined()
    expect(log.all('v1')).toHaveLength(1)
    log.close()
    expect(existsSync(join(blocked, ACTIVITY_DB_FILE))).toBe(true)
  })
})

describe('activity export', () => {
  const entries = [
    {
      id: 1,
      vaultId: 'v1',
      at: '2026-03-01T09:00:00.000Z',
      kind: 'check-in' as const,
      source: 'unlock' as const,
      detail: { nextCheckInDue: '2026-03-31T09:00:00.000Z' },
    },
    {
      id: 2,
      vaultId: 'v1',
      at: '2026-03-02T10:00:00.000Z',
      kind: 'guardian-added' as const,
      source: 'window' as const,
      detail: { person: '=HYPERLINK("x")', email: 'eve@example.com' },
    },
    {
      id: 3,
      vaultId: 'v1',
      at: '2026-03-03T11:00:00.000Z',
      kind: 'upload' as const,
      source: 'window' as const,
      detail: { files: 2, failed: 0, credits: 1, names: ['Taxes/return, 2024.pdf', 'notes.txt'] },
    },
  ]

  it('writes CSV with a header, one row per entry, quoted cells and no formulas', () => {
    const csv = exportActivityText('v1', entries, 'csv')
    const lines = csv.trimEnd().split('\r\n')
    expect(lines[0]).toBe(CSV_COLUMNS.join(','))
    expect(lines).toHaveLength(4)
    expect(lines[1]).toMatch(
      /^2026-03-01T09:00:00.000Z,check-in,unlocking this computer,Checked in on unlock; next check-in due 2026-03-31T09:00:00.000Z,/,
    )
    // The description starts with words, so no formula; the detail cell is quoted JSON.
    expect(lines[2]).toContain('"Guardian added: =HYPERLINK(""x"") <eve@example.com>"')
    expect(lines[3]).toContain('"Uploaded 2 files for 1 credit (Taxes/return, 2024.pdf, notes.txt)"')
  })

  it('guards a cell that would start a formula', () => {
    const csv = exportActivityText(
      'v1',
      [{ ...entries[0]!, kind: 'check-in-failed' as const, detail: { error: 'x' }, at: '=1+1' }],
      'csv',
    )
    expect(csv.split('\r\n')[1]).toMatch(/^"'=1\+1",/)
  })

  it('writes JSON that reads back to the same entries', () => {
    const json = JSON.parse(exportActivityText('v1', entries, 'json')) as {
      vaultId: string
      entries: Array<{ at: string; kind: string; source: string; detail: object }>
    }
    expect(json.vaultId).toBe('v1')
    expect(json.entries).toEqual(
      entries.map((e) => ({ at: e.at, kind: e.kind, source: e.source, detail: e.detail })),
    )
  })

  it('describes every kind in a sentence', () => {
    expect(describeActivity({ ...entries[0]!, kind: 'release-cancelled', detail: {} })).toBe(
      'Release cancelled',
    )
    expect(describeActivity({ ...entries[0]!, kind: 'kit-handed-over', detail: { person: 'Bob' } })).toBe(
      'Kit handed over to Bob',
    )
    expect(
      describeActivity({ ...entries[0]!, kind: 'upload', detail: { files: 7, failed: 1, names: ['a'] } }),
    ).toBe('Uploaded 7 files, 1 failed (a, …)')
  })
})
