// Every string the window shows, in English. Sections follow the screens; a translation (es.ts)
// overrides what it covers. Keep messages whole sentences: word order differs between languages.
import type { LocaleFormat } from '../../shared/locale-format'

export const english = (f: LocaleFormat) => ({
  app: {
    name: 'Vault Desktop',
    mainNavigation: 'Main',
    releasingBadge: (n: number) => `${f.number(n)} releasing`,
  },
  screens: {
    vaults: 'Vaults',
    recovery: 'Recovery',
    settings: 'Settings',
  },
  common: {
    dismiss: 'Dismiss',
    cancel: 'Cancel',
    files: (n: number) => f.count(n, { one: 'file', other: 'files' }),
    credits: (n: number) => f.credits(n),
  },
})

export type Catalogue = ReturnType<typeof english>
