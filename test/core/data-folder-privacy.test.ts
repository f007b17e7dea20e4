// The app's data folder holds guardian and heir names and e-mails, file names and check-in notes:
// the folder 0700 and every file in it 0600 (SQLite's -wal and -shm included), whatever the umask,
// and a folder an older version left 0755 with 0644 files tightened at start.
import { chmod, lstat, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { JsonFileWriter } from '../../src/main/core/storage/json-file'
import { keepUserDataPrivate } from '../../src/main/core/storage/user-data-dir'
import { createVaultApp } from '../../src/main/core/vault-app'

const posix = process.platform !== 'win32'
const WINDOWS_SKIP =
  'Windows has no POSIX modes: the data folder is private through the access list it inherits from the profile'

/** Every folder and file below `dir` (itself included) with its permission bits. */
async function modes(dir: string): Promise<Map<string, number>> {
  const found = new Map<string, number>([['.', (await lstat(dir)).mode & 0o777]])
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isSymbolicLink()) continue
    const path = join(entry.parentPath, entry.name)
    found.set(path.slice(dir.length + 1), (await lstat(path)).mode & 0o777)
  }
  return found
}

/** The entries readable, writable or listable by anyone but the owner. */
async function exposed(dir: string): Promise<string[]> {
  return [...(await modes(dir))]
    .filter(([, mode]) => (mode & 0o077) !== 0)
    .map(([path, mode]) => `${path} ${mode.toString(8)}`)
}

/** What an older version left: everything open to other users of the computer. */
async function loosen(dir: string): Promise<void> {
  for (const [path] of await modes(dir)) {
    const full = path === '.' ? dir : join(dir, path)
    await chmod(full, (await lstat(full)).isDirectory() ? 0o755 : 0o644)
  }
}

let root: string
let umask: number
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'vault-private-'))
  // The usual desktop umask, under which files are made 0644 unless the app says otherwise.
  umask = process.umask(0o022)
})
afterEach(async () => {
  process.umask(umask)
  await rm(root, { recursive: true, force: true })
})

describe.skipIf(!posix)(`the data folder is private (${posix ? 'POSIX' : WINDOWS_SKIP})`, () => {
  it('the app makes its folder 0700 and its files, SQLite -wal and -shm included, 0600', async () => {
    const dir = join(root, 'Vault Desktop')
    const app = createVaultApp({ userDataDir: dir, mode: 'browser', version: '0', useKeychain: false })
    await app.start()
    await app.settings.update({ notifications: false })
    const files = [...(await modes(dir)).keys()]
    // The session's databases are open in WAL mode: their -wal and -shm exist now.
    expect(files).toEqual(
      expect.arrayContaining([
        'uploads.sqlite',
        'uploads.sqlite-wal',
        'uploads.sqlite-shm',
        'activity.sqlite',
        'activity.sqlite-wal',
        'activity.sqlite-shm',
        'settings.json',
      ]),
    )
    expect(await exposed(dir)).toEqual([])
    expect((await modes(dir)).get('.')).toBe(0o700)
    await app.close()
  })

  it('a folder an older version left 0755 with 0644 files is tightened at start', async () => {
    const dir = join(root, 'Vault Desktop')
    const first = createVaultApp({ userDataDir: dir, mode: 'browser', version: '0', useKeychain: false })
    await first.start()
    await first.close()
    // The files the review found readable, and a folder of kits below.
    await writeFile(join(dir, 'vault-records.json'), '{"version":1,"records":{}}')
    await writeFile(join(dir, 'connections.json'), '{"connections":[]}')
    await mkdir(join(dir, 'guardian-kits'))
    await writeFile(join(dir, 'guardian-kits', 'vault.json'), '{}')
    await loosen(dir)
    expect(await exposed(dir)).toContain('vault-records.json 644')

    const again = createVaultApp({ userDataDir: dir, mode: 'browser', version: '0', useKeychain: false })
    await again.start()
    expect(await exposed(dir)).toEqual([])
    const after = await modes(dir)
    expect(after.get('.')).toBe(0o700)
    expect(after.get('guardian-kits')).toBe(0o700)
    expect(after.get('vault-records.json')).toBe(0o600)
    expect(after.get('uploads.sqlite-wal')).toBe(0o600)
    await again.close()
  })

  it('tightens without following symbolic links, and keeps an owner-only mode as it is', async () => {
    const dir = join(root, 'data')
    const outside = join(root, 'outside.txt')
    await mkdir(dir, { mode: 0o755 })
    await writeFile(outside, 'not ours', { mode: 0o644 })
    await chmod(outside, 0o644)
    await symlink(outside, join(dir, 'link'))
    await writeFile(join(dir, 'script'), '', { mode: 0o700 })
    await chmod(join(dir, 'script'), 0o700)
    const result = await keepUserDataPrivate(dir)
    expect(result).toEqual({ tightened: 1, failed: [] })
    expect((await lstat(outside)).mode & 0o777).toBe(0o644)
    expect((await lstat(join(dir, 'script'))).mode & 0o777).toBe(0o700)
  })

  it('writes JSON state 0600 even under a permissive umask', async () => {
    process.umask(0)
    const file = join(root, 'state', 'connections.json')
    await new JsonFileWriter(file).write({ connections: [] })
    expect((await lstat(file)).mode & 0o777).toBe(0o600)
    expect((await lstat(join(root, 'state'))).mode & 0o777).toBe(0o700)
  })

  it('does nothing on Windows, where modes do not apply', async () => {
    const dir = join(root, 'win')
    expect(await keepUserDataPrivate(dir, 'win32')).toEqual({ tightened: 0, failed: [] })
  })
})
