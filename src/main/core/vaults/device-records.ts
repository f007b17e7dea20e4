// What this device remembers about vaults that the service does not report: the last check-in
// made from here, the deadline and frequency from check-in and configuration answers (for services
// that omit them from the vault), and the guardians and heirs added from here (for services
// without list endpoints). Kept per vault in userData/vault-records.json.
import { join } from 'node:path'
import type { CheckInFrequency, Guardian, Heir, ReleaseTrigger } from '../../../shared/api'
import { JsonFileWriter, readJsonFile } from '../storage/json-file'

export interface VaultRecord {
  lastCheckIn?: { at: string; note: string | null }
  nextCheckInDue?: string
  checkInFrequency?: CheckInFrequency
  releaseTrigger?: ReleaseTrigger
  guardians?: Guardian[]
  heirs?: Heir[]
  /** The owner's name for the vault, for services that keep no names. */
  name?: string
  /** The owner typed words back from the saved owner kit of the key with this fingerprint. */
  ownerKit?: { confirmedAt: string; fingerprint: string }
  /** Last "credits run short" notification, so it repeats weekly rather than at every poll. */
  creditsLowNoticeAt?: string
}

interface RecordsFile {
  version: 1
  vaults: Record<string, VaultRecord>
}

export class DeviceRecords {
  readonly #writer: JsonFileWriter<RecordsFile>
  #state: RecordsFile

  private constructor(file: string, state: RecordsFile) {
    this.#writer = new JsonFileWriter(file)
    this.#state = state
  }

  static async open(userDataDir: string): Promise<DeviceRecords> {
    const file = join(userDataDir, 'vault-records.json')
    return new DeviceRecords(file, await readJsonFile<RecordsFile>(file, { version: 1, vaults: {} }))
  }

  get(vaultId: string): VaultRecord {
    return this.#state.vaults[vaultId] ?? {}
  }

  async update(vaultId: string, change: (record: VaultRecord) => VaultRecord): Promise<VaultRecord> {
    const next = change({ ...this.get(vaultId) })
    this.#state = { ...this.#state, vaults: { ...this.#state.vaults, [vaultId]: next } }
    await this.#writer.write(this.#state)
    return next
  }

  flush(): Promise<void> {
    return this.#writer.flush()
  }
}
