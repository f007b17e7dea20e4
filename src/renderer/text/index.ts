// The window's words and formats for the system's language (navigator.language is the OS locale in
// Electron and the browser's in browser mode). Import `text` and `format` from here; never write a
// user-facing string or date format in a component.
import { type LocaleFormat, localeFormat } from '../../shared/locale-format'
import { overlay, type Translation } from './catalogue'
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
}

export function uiTextFor(locale: string | undefined): UiText {
  const format = localeFormat(locale)
  const language = format.locale.split('-')[0]!.toLowerCase()
  const translate = TRANSLATIONS[language]
  const base = english(format)
  return translate
    ? { text: overlay(base, translate(format)), format, language }
    : { text: base, format, language: 'en' }
}

const active = uiTextFor(typeof navigator === 'undefined' ? undefined : navigator.language)
export const text: Catalogue = active.text
export const format: LocaleFormat = active.format
export const language: string = active.language
