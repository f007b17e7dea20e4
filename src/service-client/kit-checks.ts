// Kit checks (extension kit-check, FORMAT.md 5.5): the owner registers a split's check code hashes,
// and a guardian confirms they still hold their kit with the code alone. Neither call ever carries a
// kit's words: the registration sends SHA-256 hashes, the check the 9-character code.
import {
  KIT_CHECK_OUTCOMES,
  type KitCheckRegistered,
  type KitCheckRegistration,
  type KitCheckResult,
} from '../shared/api'
import { AppError } from '../shared/app-error'
import { checkServiceAddress } from '../shared/service-address'
import { shown } from '../shared/service-answers'
import { badAnswer } from './answer-checks'
import { type ApiClientOptions, Transport } from './transport'
import { vaultPath } from './vaults'

const isDate = (value: unknown): value is string =>
  typeof value === 'string' && !Number.isNaN(Date.parse(value))

/** PUT /vault/:id/kit-checks: the answer must name the split sent, with a date. */
export async function registerKitChecks(
  t: Transport,
  vaultId: string,
  registration: KitCheckRegistration,
): Promise<KitCheckRegistered> {
  const answer = await t.data<unknown>('register kit checks', 'PUT', vaultPath(vaultId, 'kit-checks'), {
    json: registration,
    idempotent: true,
  })
  const { split, registeredAt } = (answer ?? {}) as Partial<KitCheckRegistered>
  if (split !== registration.split) {
    throw badAnswer(
      t,
      'register kit checks',
      `kit checks registered for split ${shown(split)}, not ${registration.split}`,
    )
  }
  if (!isDate(registeredAt)) {
    throw badAnswer(t, 'register kit checks', `kit checks registered at ${shown(registeredAt)}, not a date`)
  }
  return { split, registeredAt }
}

/** POST /kit-check: an outcome the client knows, with the date each outcome carries. */
export async function checkKit(t: Transport, guardianToken: string, code: string): Promise<KitCheckResult> {
  const answer = await t.data<unknown>('check a kit', 'POST', '/kit-check', {
    json: { guardianToken, code },
    idempotent: true,
  })
  const result = (answer ?? {}) as Partial<KitCheckResult>
  if (!KIT_CHECK_OUTCOMES.includes(result.outcome as never)) {
    throw badAnswer(t, 'check a kit', `a kit check outcome ${shown(result.outcome)}`)
  }
  if (result.outcome === 'confirmed' && !isDate(result.confirmedAt)) {
    throw badAnswer(t, 'check a kit', `a kit confirmed at ${shown(result.confirmedAt)}, not a date`)
  }
  if (result.outcome === 'older-split' && !isDate(result.newSplitAt)) {
    throw badAnswer(t, 'check a kit', `new kits made at ${shown(result.newSplitAt)}, not a date`)
  }
  return result as KitCheckResult
}

/** Where a guardian's e-mail link points: the service's address and the guardian's token. */
export interface GuardianLink {
  serviceUrl: string
  guardianToken: string
}

// The service's links: <service>/guardian/gt_…[/anything] (invitation) and <service>/kit-check/kc_… (reminder).
const LINK_PATH =
  /^(.*?)\/(?:guardian\/(gt_[A-Za-z0-9_-]{43,})(?:\/[^/]*)?|kit-check\/(kc_[A-Za-z0-9_-]{43,}))\/?$/

/**
 * The guardian page link from an invitation or kit-check reminder e-mail, taken apart. The token in it is
 * the only credential a kit check needs; the address must pass the app's rule (https unless this computer).
 */
export function parseGuardianLink(link: string): GuardianLink {
  const refuse = (why: string) =>
    new AppError({
      code: 'BAD_GUARDIAN_LINK',
      userMessage: `${why} Copy the whole "check my kit" link from your guardian e-mail (it starts with https:// and contains /guardian/ or /kit-check/).`,
    })
  const url = URL.parse(link.trim())
  if (!url) throw refuse('That is not a web link.')
  const match = LINK_PATH.exec(url.pathname)
  if (!match) throw refuse('That link is not a guardian page link.')
  const address = checkServiceAddress(`${url.origin}${match[1] ?? ''}`)
  if (!address.ok) throw refuse(address.message)
  return { serviceUrl: address.url, guardianToken: (match[2] ?? match[3])! }
}

/**
 * A guardian's kit check from their e-mail link: only the token and the code are sent, with no API key
 * (the token is the credential). The local service answers under /api.
 */
export function checkKitByLink(
  link: string,
  code: string,
  options: Omit<ApiClientOptions, 'baseUrl' | 'apiKey' | 'prefix'> = {},
): Promise<KitCheckResult> {
  const { serviceUrl, guardianToken } = parseGuardianLink(link)
  const t = new Transport({ ...options, baseUrl: serviceUrl, apiKey: '', prefix: '/api' })
  return checkKit(t, guardianToken, code)
}
