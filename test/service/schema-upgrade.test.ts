// Upgrading a data folder that already holds data: each migration must run on full tables, not only
// on the empty ones a fresh test database has. Schema 6 ends practices of the old scheme (their
// e-mails asked guardians for their real kits) and keeps their history.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { DATABASE_FILE, MIGRATIONS, openDatabase, SCHEMA_VERSION } from '../../src/service/database'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe('schema upgrades on a database with data', () => {
  it('schema 5 -> 6: a running practice of the old scheme is ended, a passed one keeps its history', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-schema-'))
    dirs.push(dir)
    const old = new Database(join(dir, DATABASE_FILE))
    for (const migration of MIGRATIONS.slice(0, 5)) old.exec(migration)
    old.pragma('user_version = 5')
    const at = '2026-09-01T00:00:00.000Z'
    old
      .prepare(
        "INSERT INTO accounts (id, email, credits_balance, created_at) VALUES ('acc_1', 'o@example.com', 100, ?)",
      )
      .run(at)
    old
      .prepare(
        "INSERT INTO vaults (id, account_id, sss_preset, state, created_at, updated_at) VALUES ('vlt_1', 'acc_1', 'standard', 'active', ?, ?)",
      )
      .run(at, at)
    const insert = old.prepare(
      `INSERT INTO rehearsals (id, vault_id, heir_id, heir_name, heir_email, asset_id, asset_filename, challenge,
        proof_hash, token_hash, guardians_notified, started_at, expires_at, passed_at)
       VALUES (?, 'vlt_1', 'hr_1', 'Sam', 'sam@example.com', 'ast_1', 'will.pdf', ?, ?, ?, 2, ?, ?, ?)`,
    )
    insert.run(
      'rh_running',
      'a'.repeat(32),
      'b'.repeat(64),
      Buffer.from('t1'),
      '2026-11-01T00:00:00.000Z',
      '2099-01-01T00:00:00.000Z',
      null,
    )
    insert.run(
      'rh_passed',
      'c'.repeat(32),
      'd'.repeat(64),
      Buffer.from('t2'),
      '2026-10-01T00:00:00.000Z',
      '2026-10-08T00:00:00.000Z',
      '2026-10-02T00:00:00.000Z',
    )
    old.close()

    const db = openDatabase(dir)
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
    const rows = db
      .prepare(
        'SELECT id, ended_at, passed_at, sample_filename, sample_bytes, sample FROM rehearsals ORDER BY id',
      )
      .all() as {
      id: string
      ended_at: string | null
      passed_at: string | null
      sample_filename: string
      sample: Buffer | null
    }[]
    db.close()
    expect(rows.map((r) => r.id)).toEqual(['rh_passed', 'rh_running'])
    // Both ended (no old-scheme practice may go on); the passed one still says it passed.
    for (const row of rows) expect(row.ended_at).toEqual(expect.any(String))
    expect(rows[0]).toMatchObject({
      passed_at: '2026-10-02T00:00:00.000Z',
      sample_filename: 'will.pdf',
      sample: null,
    })
  })
})
