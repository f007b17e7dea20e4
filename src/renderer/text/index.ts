// The window's words and formats for the system's language (navigator.language is the OS locale in
// Electron and the browser's in browser mode). Import `text` and `format` from here; never write a
// user-facing string or date format in a component.
import { type LocaleFormat, localeFormat } from '../../shared/locale-format'
import { overlay, type Translation } from '../../shared/text-catalogue'
import { type Catalogue, english } from './en'
import { spanish } from './es'

const TRANSLATIONS: Record<string, (f: LocaleFormat) => Translation<Catalogue>> = {
  es: spanish,
}

export interface UiText {
  text: Catalogue
  format: LocaleFormat
  /** The language the translated sections are in ('en' when none applies). */
  language: string
  /** What the translation covers: "section" when all of it, "section.key" for each key. */
  translated: ReadonlySet<string>
}

export function uiTextFor(locale: string | undefined): UiText {
  const format = localeFormat(locale)
  const language = format.locale.split('-')[0]!.toLowerCase()
  const translate = TRANSLATIONS[language]
  const base = english(format)
  if (!translate) return { text: base, format, language: 'en', translated: new Set() }
  const translation = translate(format)
  const translated = new Set<string>()
  for (const [section, entries] of Object.entries(translation)) {
    const keys = Object.keys(entries ?? {})
    for (const key of keys) translated.add(`${section}.${key}`)
    if (Object.keys(base[section as keyof Catalogue]).every((key) => keys.includes(key)))
      translated.add(section)
  }
  return { text: overlay(base, translation), format, language, translated }
}

// Read through globalThis: unit tests load the catalogue in Node, which has no navigator on Node 20.
const active = uiTextFor((globalThis as { navigator?: { language?: string } }).navigator?.language)
export const text: Catalogue = active.text
export const format: LocaleFormat = active.format
export const language: string = active.language

/**
 * The `lang` attribute for the region showing a catalogue section (or one message of it), so screen
 * readers switch voice with the words: the translation's language when it covers all of it, 'en' when
 * a translation is active but leaves it English, nothing when the window is English (as the page is).
 */
export function langOf<S extends keyof Catalogue>(section: S, key?: keyof Catalogue[S]): string | undefined {
  if (active.language === 'en') return undefined
  const covered = key === undefined ? section : `${section}.${String(key)}`
  return active.translated.has(covered) ? active.language : 'en'
}

/**
 * The `lang` attribute for a sentence written by the app's core (main process, vault service), which
 * is English this round: set only when the surrounding words are in another language.
 */
export const coreLang: string | undefined = active.language === 'en' ? undefined : 'en'
