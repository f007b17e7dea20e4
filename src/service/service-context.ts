// Opens a data directory as a ServiceContext: database, blob store, clock, public URL. Used by
// startService() and, without any HTTP, by the admin CLI.
import { join } from 'node:path'
import { LIMITS } from '../shared/api'
import { type BlobStore, FolderBlobStore } from './blob-store'
import type { ServiceContext } from './context'
import { openSqliteStore } from './database'
import { readSetting, type SqlStore } from './sql-store'

export const PUBLIC_URL_SETTING = 'public_url'

/** Where blobs live when not in <data-dir>/blobs: a folder several instances share, or Arweave. */
export type BlobChoice =
  | { kind: 'folder'; path: string }
  | { kind: 'arweave'; gateway: string; walletFile: string }

/** Where the state lives; by default the SQLite file and blob folder of the data directory. */
export interface StorageChoice {
  /** postgres://… to share state with other instances (see postgres-store.ts). */
  postgresUrl?: string
  blobs?: BlobChoice
  /** The mail key every instance sharing the database uses (see outbox.ts); by default <data-dir>/mail.key. */
  mailKeyFile?: string
}

/** Opens a data directory for use without HTTP (the admin CLI), sharing the running service's settings. */
export async function openServiceContext(
  dataDir: string,
  clock: () => Date = () => new Date(),
  storage: StorageChoice = {},
): Promise<{ ctx: ServiceContext; db: SqlStore }> {
  const db = storage.postgresUrl ? await openPostgres(storage.postgresUrl) : openSqliteStore(dataDir)
  let publicUrl: string
  let blobs: BlobStore
  try {
    publicUrl = (await readSetting(db, PUBLIC_URL_SETTING)) ?? 'http://127.0.0.1'
    blobs = await openBlobStore(storage.blobs, dataDir)
  } catch (error) {
    await db.close()
    throw error
  }
  const ctx: ServiceContext = {
    db,
    clock,
    dataDir,
    ...(storage.mailKeyFile ? { mailKeyFile: storage.mailKeyFile } : {}),
    blobs,
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

async function openBlobStore(choice: BlobChoice | undefined, dataDir: string): Promise<BlobStore> {
  if (!choice) return FolderBlobStore.inDataDir(dataDir)
  if (choice.kind === 'folder') return FolderBlobStore.shared(choice.path)
  const { openArweaveBlobStore } = await import('./arweave-blob-store')
  return openArweaveBlobStore({
    gateway: choice.gateway,
    walletFile: choice.walletFile,
    cacheDir: join(dataDir, 'arweave-cache'),
  })
}
