// Spanish, for the people most likely not to read English: heirs on the Recovery screen.
// Sections not listed here stay in English.
import type { LocaleFormat } from '../../shared/locale-format'
import type { Translation } from './catalogue'
import type { Catalogue } from './en'

export const spanish = (f: LocaleFormat): Translation<Catalogue> => ({
  screens: {
    recovery: 'Recuperación',
  },
  common: {
    files: (n: number) => f.count(n, { one: 'archivo', other: 'archivos' }),
  },
})
