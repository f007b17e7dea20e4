// The catalogue: English has every message; the Spanish translation covers all of what the heir sees on
// the Recovery screen (so that screen is entirely Spanish), and its messages read right for any number.
import { describe, expect, it } from 'vitest'
import { english } from '../../src/renderer/text/en'
import { spanish } from '../../src/renderer/text/es'
import { uiTextFor } from '../../src/renderer/text/index'
import { localeFormat } from '../../src/shared/locale-format'

/** What the Recovery screen shows: its own section and the shared parts it uses. */
const RECOVERY_SECTIONS = ['recovery', 'errors', 'qrImage', 'screens'] as const

/** Messages that are the same in both languages (a URL, a token prefix, "Kit 2"). */
const SAME_IN_SPANISH = new Set([
  'recovery.serviceAddressPlaceholder',
  'recovery.accessTokenPlaceholder',
  'recovery.kit',
])

const SAMPLE_NUMBERS = [0, 1, 2, 5, 21, 1_000, 12_345, 1.5]
const NOW = Date.parse('2026-11-23T09:45:04Z')

type Entry = [key: string, value: unknown]
const entries = (section: object, prefix: string): Entry[] =>
  Object.entries(section).flatMap(([key, value]): Entry[] =>
    value && typeof value === 'object' ? entries(value, `${prefix}.${key}`) : [[`${prefix}.${key}`, value]],
  )

/** A message with sample arguments: numbers for every parameter (strings take them too). */
const render = (message: unknown, n: number): unknown =>
  typeof message === 'function' ? message(...Array.from({ length: message.length }, () => n)) : message

describe('the Spanish catalogue covers the Recovery screen', () => {
  const en = english(localeFormat('en'))
  const es = spanish(localeFormat('es-ES'))

  for (const section of RECOVERY_SECTIONS) {
    it(`has every message of "${section}", of the same kind, translated`, () => {
      const english = new Map(entries(en[section], section))
      const translated = new Map(entries(es[section] ?? {}, section))
      expect([...translated.keys()].sort()).toEqual([...english.keys()].sort())
      for (const [key, value] of english) {
        const spanishValue = translated.get(key)
        expect(typeof spanishValue, key).toBe(typeof value)
        if (typeof value === 'function') expect((spanishValue as () => string).length, key).toBe(value.length)
        if (!SAME_IN_SPANISH.has(key)) expect(render(spanishValue, 3), key).not.toBe(render(value, 3))
      }
    })
  }

  it('every message returns text for any number, in both languages', () => {
    for (const catalogue of [en, es]) {
      for (const section of RECOVERY_SECTIONS) {
        for (const [key, message] of entries(catalogue[section] ?? {}, section)) {
          for (const n of SAMPLE_NUMBERS) {
            const out = render(message, n)
            expect(typeof out, key).toBe('string')
            expect((out as string).trim(), key).not.toBe('')
            expect(out, key).not.toMatch(/undefined|NaN|\[object/)
          }
        }
      }
    }
  })

  it('says one recovered file in the singular', () => {
    const r = uiTextFor('en-US').text.recovery
    expect(`${r.allRecovered(1)} ${r.savedIn(1, '/x')}`).toBe(
      'The file was recovered and checked. It is in /x.',
    )
    expect(`${r.allRecovered(3)} ${r.savedIn(3, '/x')}`).toBe(
      'All 3 files recovered and checked. They are in /x.',
    )
  })

  it('uses Spanish plural forms, number grouping and dates', () => {
    const r = uiTextFor('es-ES').text.recovery
    expect(r.kitsEntered(1)).toBe('1 kit introducido.')
    expect(r.kitsEntered(2)).toBe('2 kits introducidos.')
    expect(r.kitsShort(1, 3, 5)).toContain('Pida su kit a 2 guardianes más.')
    expect(r.kitsShort(2, 3, 5)).toContain('Pida su kit a un guardián más.')
    expect(r.vaultHolds(1, '12 kB')).toBe('La bóveda contiene 1 archivo (12 kB en total)')
    expect(r.vaultHolds(12_345, '1,23 GB')).toBe('La bóveda contiene 12.345 archivos (1,23 GB en total)')
    expect(r.allRecovered(1)).toBe('El archivo se ha recuperado y comprobado.')
    expect(r.savedIn(1, '/x')).toBe('Está en /x.')
    expect(r.savedIn(2, '/x')).toBe('Están en /x.')
    expect(r.someRecovered(1, 4)).toBe('Se ha recuperado 1 de 4 archivos.')
    expect(r.finishedAt(NOW)).toMatch(/^Terminada el 23 nov 2026, \d\d:\d\d\.$/)
    const f = uiTextFor('es-ES').format
    expect(f.bytes(1_234_567)).toBe('1,23 MB')
  })

  it('picks the translation from the locale, and English for any other', () => {
    expect(uiTextFor('es-MX').text.recovery.title).toBe('Recuperación')
    expect(uiTextFor('es-ES').language).toBe('es')
    expect(uiTextFor('en-US').text.recovery.title).toBe('Recovery')
    const french = uiTextFor('fr-FR')
    expect(french.text.recovery.title).toBe('Recovery')
    expect(french.language).toBe('en')
    // The words stay English; the numbers and dates follow the system's locale all the same.
    expect(french.format.number(12_345)).toBe('12\u202f345')
  })

  it('Spanish leaves sections it does not translate in English', () => {
    const { text } = uiTextFor('es-ES')
    expect(text.settings.title).toBe('Settings')
    expect(text.common.files(2)).toBe('2 archivos')
  })
})
