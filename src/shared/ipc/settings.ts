// Application settings: the schema is the single definition of what can be stored; defaults below.
import { z } from 'zod'

export const ThemeSchema = z.enum(['system', 'light', 'dark'])

// No .default() here: zod applies defaults inside .partial(), which would turn every patch into a reset.
export const SettingsSchema = z.object({
  theme: ThemeSchema,
  launchAtLogin: z.boolean(),
  notifications: z.boolean(),
  /** Days before the deadline at which to remind the owner to check in. */
  reminderDaysBefore: z.array(z.number().int().min(1).max(30)).max(5),
  /** Repeat the overdue reminder every N hours. */
  overdueRepeatHours: z.number().int().min(1).max(168),
  uploadConcurrency: z.number().int().min(1).max(8),
  /** Ask before uploads estimated to cost more than this many credits. */
  confirmUploadAboveCredits: z.number().int().min(0).max(1_000_000),
  /** Months of check-ins an upload may not spend (0: no reserve). */
  checkInReserveMonths: z.number().int().min(0).max(60),
  /**
   * Vaults whose uploads tell the service each file's real name, folder path, type and time (the
   * owner opted in, per vault). Every other vault uploads under a neutral name with none of these:
   * the real name travels only inside the encrypted file.
   */
  realNameVaults: z.array(z.string().min(1).max(200)).max(1000),
  /** Check in when the computer is unlocked (through a read-and-check-in key; see unlock-check-in.ts). */
  checkInOnUnlock: z.boolean(),
})

export type Settings = z.output<typeof SettingsSchema>
export const SettingsPatchSchema = SettingsSchema.partial().strict()
export type SettingsPatch = z.input<typeof SettingsPatchSchema>

export const DEFAULT_SETTINGS: Settings = {
  theme: 'system',
  launchAtLogin: false,
  notifications: true,
  reminderDaysBefore: [3, 1],
  overdueRepeatHours: 12,
  uploadConcurrency: 2,
  confirmUploadAboveCredits: 50,
  checkInReserveMonths: 12,
  realNameVaults: [],
  checkInOnUnlock: false,
}
