// The words outside the window for the system's language. The shell names the language once at start
// (Electron: app.getLocale()); until then, and in tests, the words are English.
import { type LocaleFormat, localeFormat } from '../../../shared/locale-format'
import { overlay, type Translation } from '../../../shared/text-catalogue'
import { type DesktopCatalogue, english } from './en'
import { spanish } from './es'

export type { DesktopCatalogue } from './en'

const TRANSLATIONS: Record<string, (f: LocaleFormat) => Translation<DesktopCatalogue>> = { es: spanish }

export interface DesktopText {
  text: DesktopCatalogue
  format: LocaleFormat
  /** 'en', or the translation's language. */
  language: string
}

export function desktopTextFor(locale: string | undefined): DesktopText {
  const format = localeFormat(locale)
  const language = format.locale.split('-')[0]!.toLowerCase()
  const translate = TRANSLATIONS[language]
  const base = english(format)
  if (!translate) return { text: base, format, language: 'en' }
  return { text: overlay(base, translate(format)), format, language }
}

// Made on first use: the locale's Intl data costs memory a process that shows nothing need not pay.
let locale: string | undefined = 'en'
let active: DesktopText | undefined

/** Called by the shell with the system's language before it shows anything. */
export function setDesktopLocale(wanted: string | undefined): void {
  locale = wanted
  active = undefined
}

function current(): DesktopText {
  active ??= desktopTextFor(locale)
  return active
}

/** The words for the language in use now. */
export function desktopText(): DesktopCatalogue {
  return current().text
}

/** The language of those words, for a notice the window shows (undefined when English, as the page is). */
export function desktopLanguage(): string | undefined {
  const { language } = current()
  return language === 'en' ? undefined : language
}
