// Settings persisted as JSON in the user data folder; every read and write goes through the schema.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import {
  DEFAULT_SETTINGS,
  type Settings,
  type SettingsPatch,
  SettingsPatchSchema,
  SettingsSchema,
} from '../../../shared/ipc/settings'

export class SettingsStore {
  readonly path: string
  #current: Settings | undefined

  constructor(userDataDir: string) {
    this.path = join(userDataDir, 'settings.json')
  }

  async get(): Promise<Settings> {
    if (!this.#current) this.#current = await this.#load()
    return this.#current
  }

  async update(patch: SettingsPatch): Promise<Settings> {
    const valid = SettingsPatchSchema.parse(patch)
    const next = SettingsSchema.parse({ ...(await this.get()), ...valid })
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 })
    // Write then rename so a crash never leaves a half-written file.
    const temp = `${this.path}.${process.pid}.tmp`
    await writeFile(temp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 })
    await rename(temp, this.path)
    this.#current = next
    return next
  }

  async #load(): Promise<Settings> {
    let text: string
    try {
      text = await readFile(this.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return DEFAULT_SETTINGS
      throw error
    }
    try {
      // Unknown or invalid fields fall back to defaults rather than locking the user out of the app.
      const stored = JSON.parse(text) as Record<string, unknown>
      const merged: Record<string, unknown> = { ...DEFAULT_SETTINGS }
      for (const [key, value] of Object.entries(stored)) {
        const field = SettingsSchema.shape[key as keyof Settings]
        if (field?.safeParse(value).success) merged[key] = value
      }
      return SettingsSchema.parse(merged)
    } catch {
      return DEFAULT_SETTINGS
    }
  }
}
