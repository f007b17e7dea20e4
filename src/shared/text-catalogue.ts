// How words are kept, in the window and outside it (tray, notifications): one English catalogue holds
// every string; a translation is one file that overrides any part of it (the rest stays English).
// Messages with numbers are functions of the locale's format, so plurals, dates and numbers follow the
// same locale as the words.
import type { LocaleFormat } from './locale-format'

type Message = string | ((...args: never[]) => string)
export interface CatalogueShape {
  [section: string]: { [key: string]: Message | { [key: string]: Message } }
}

export type Translation<C> = {
  [S in keyof C]?: { [K in keyof C[S]]?: C[S][K] extends Message ? C[S][K] : Partial<C[S][K]> }
}

export type CatalogueBuilder<C> = (format: LocaleFormat) => C

/** The English catalogue with a translation laid over it, section by section. */
export function overlay<C extends CatalogueShape>(base: C, translation: Translation<C>): C {
  const merged: Record<string, unknown> = { ...base }
  for (const [section, entries] of Object.entries(translation)) {
    if (!entries) continue
    const baseSection = base[section] as Record<string, unknown>
    const out: Record<string, unknown> = { ...baseSection }
    for (const [key, value] of Object.entries(entries)) {
      const baseValue = baseSection?.[key]
      out[key] =
        value && typeof value === 'object' && baseValue && typeof baseValue === 'object'
          ? { ...baseValue, ...value }
          : value
    }
    merged[section] = out
  }
  return merged as C
}
