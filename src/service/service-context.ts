// Opens a data directory as a ServiceContext: database, blob store, clock, public URL. Used by
// startService() and, without any HTTP, by the admin CLI.
import { LIMITS } from '../shared/api'
import { BlobStore } from './blob-store'
import type { ServiceContext } from './context'
import { type Db, openDatabase, readSetting } from './database'

export const PUBLIC_URL_SETTING = 'public_url'

/** Opens a data directory for use without HTTP (the admin CLI), sharing the running service's settings. */
export function openServiceContext(
  dataDir: string,
  clock: () => Date = () => new Date(),
): { ctx: ServiceContext; db: Db } {
  const db = openDatabase(dataDir)
  const ctx: ServiceContext = {
    db,
    clock,
    dataDir,
    blobs: new BlobStore(dataDir),
    publicUrl: () => readSetting(db, PUBLIC_URL_SETTING) ?? 'http://127.0.0.1',
    maxFileBytes: LIMITS.maxFileBytes,
    outboxChanged: () => {},
  }
  return { ctx, db }
}
