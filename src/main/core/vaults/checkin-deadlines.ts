// Check-in deadlines learned from check-in and configuration answers, for services that omit
// nextCheckInDue when the vault is read: the reminders need one either way. Kept per vault in
// userData/checkin-deadlines.json.
import { join } from 'node:path'
import type { VaultDetails } from '../../../service-client'
import { JsonFileWriter, readJsonFile } from '../storage/json-file'

interface DeadlinesFile {
  version: 1
  /** vaultId -> nextCheckInDue learned from check-in/configuration answers. */
  deadlines: Record<string, string>
}

export class CheckInDeadlines {
  readonly #deadlines: Record<string, string>
  readonly #writer: JsonFileWriter<DeadlinesFile>

  private constructor(file: string, deadlines: Record<string, string>) {
    this.#writer = new JsonFileWriter<DeadlinesFile>(file)
    this.#deadlines = deadlines
  }

  static async open(userDataDir: string): Promise<CheckInDeadlines> {
    const file = join(userDataDir, 'checkin-deadlines.json')
    const { deadlines } = await readJsonFile<DeadlinesFile>(file, { version: 1, deadlines: {} })
    return new CheckInDeadlines(file, deadlines)
  }

  /** null: the vault has no deadline any more (another trigger). */
  remember(vaultId: string, due: string | null): void {
    if (due) this.#deadlines[vaultId] = due
    else delete this.#deadlines[vaultId]
    this.#writer
      .write({ version: 1, deadlines: this.#deadlines })
      .catch((error: Error) => console.warn(`Could not save check-in deadlines: ${error.message}`))
  }

  /** The next check-in of an active vault with a dead man's switch: as the service says, else as learned. */
  dueOf(vault: VaultDetails): string | null {
    if (vault.state !== 'active' || vault.releaseTrigger !== 'dead_man_switch') return null
    return vault.nextCheckInDue ?? this.#deadlines[vault.id] ?? null
  }

  flush(): Promise<void> {
    return this.#writer.flush()
  }
}
