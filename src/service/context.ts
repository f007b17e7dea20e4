// What every part of the service shares: the database, the clock, the blob store and the outbox trigger.
import type { BlobStore } from './blob-store'
import type { SqlStore } from './sql-store'

export interface ServiceContext {
  /** SQLite (one instance) or PostgreSQL (several sharing it). */
  db: SqlStore
  /** Injectable so tests can move time forward; everything time-based reads it. */
  clock: () => Date
  dataDir: string
  /** The key outbox bodies are sealed with (secrets.ts); <dataDir>/mail.key when unset. */
  mailKeyFile?: string
  blobs: BlobStore
  /** Base URL put into e-mailed links (accept/decline/claim pages, heir instructions). */
  publicUrl: () => string
  /** Largest file an upload may carry (the spec's 5 GB; lowered only by tests). */
  maxFileBytes: number
  /** The operator's page where owners buy credits (--credits-url), told to the app by GET /service. */
  creditsUrl?: string
  /** The heir's recovery page served at /recover and named in the heir e-mail; when unset, the built one (recovery-page.ts). */
  recoveryPageFile?: string
  /** Called after messages were queued, so delivery can start without waiting for the next tick. */
  outboxChanged: () => void
}
