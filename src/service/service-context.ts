// Opens a data directory as a ServiceContext: database, blob store, clock, public URL. Used by
// startService() and, without any HTTP, by the admin CLI.
import { LIMITS } from '../shared/api'
import { type BlobStore, FolderBlobStore } from './blob-store'
import type { ServiceContext } from './context'
import { openSqliteStore } from './database'
import { readSetting, type SqlStore } from './sql-store'

export const PUBLIC_URL_SETTING = 'public_url'

/** Where the state lives; by default the SQLite file and blob folder of the data directory. */
export interface StorageChoice {
  /** postgres://… to share state with other instances (see postgres-store.ts). */
  postgresUrl?: string
  /** Blobs elsewhere than <data-dir>/blobs: a folder all instances share, or Arweave. */
  blobs?: BlobStore
}

/** Opens a data directory for use without HTTP (the admin CLI), sharing the running service's settings. */
export async function openServiceContext(
  dataDir: string,
  clock: () => Date = () => new Date(),
  storage: StorageChoice = {},
): Promise<{ ctx: ServiceContext; db: SqlStore }> {
  const db = storage.postgresUrl ? await openPostgres(storage.postgresUrl) : openSqliteStore(dataDir)
  let publicUrl: string
  try {
    publicUrl = (await readSetting(db, PUBLIC_URL_SETTING)) ?? 'http://127.0.0.1'
  } catch (error) {
    await db.close()
    throw error
  }
  const ctx: ServiceContext = {
    db,
    clock,
    dataDir,
    blobs: storage.blobs ?? FolderBlobStore.inDataDir(dataDir),
    publicUrl: () => publicUrl,
    maxFileBytes: LIMITS.maxFileBytes,
    outboxChanged: () => {},
  }
  return { ctx, db }
}

async function openPostgres(url: string): Promise<SqlStore> {
  // Loaded only when asked for: the embedded service never needs the driver.
  const { openPostgresStore } = await import('./postgres-store')
  return openPostgresStore(url)
}
