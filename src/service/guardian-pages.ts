// The small HTML pages behind the links in a guardian's invitation e-mail: accept, decline, claim.
// GET shows what the link does with a confirm button (so a mail scanner fetching links changes nothing);
// POST to the same address does it. No API key: the token in the path is the credential. Every string
// comes from the page catalogue, in the language the browser asks for.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { SSS_PRESET_SHAPE } from '../shared/api'
import { isolateName } from '../shared/untrusted-text'
import type { ServiceContext } from './context'
import { ApiError } from './errors'
import { answerUnknownToken, refuseForeignOrigin, sendPage, textFor } from './html-page'
import type { PageText } from './page-text'
import { answerInvitation, type GuardianByToken, guardianByToken } from './people'
import type { AuthFailureLimiter } from './rate-limit'
import { type ClaimStand, claimRelease, claimStandOf } from './release'

type Action = 'accept' | 'decline' | 'claim'
type Status = 'pending' | 'accepted' | 'declined'

/** The guardian behind a token, or null (the caller counts it as a failed authentication). */
async function findGuardian(ctx: ServiceContext, request: FastifyRequest): Promise<GuardianByToken | null> {
  try {
    return await guardianByToken(ctx, (request.params as { token: string }).token)
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null
    throw error
  }
}

/**
 * Where a claim stands, as paragraphs: names of the guardians who claimed go only to guardians of the same
 * vault who have not declined (a declined guardian left the circle), with a line saying why they see them.
 */
async function standParagraphs(
  ctx: ServiceContext,
  found: GuardianByToken,
  request: FastifyRequest,
): Promise<string[]> {
  if (found.guardian.status === 'declined') return []
  const { text, format } = textFor(request)
  const g = text.guardian
  const owner = isolateName(found.vault.owner_email)
  const stand: ClaimStand = await claimStandOf(ctx, found.vault.id)
  // In UTC, said so: the service's own time zone means nothing to a guardian elsewhere.
  const utc = new Intl.DateTimeFormat(format.locale, {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'UTC',
  })
  const when = (iso: string) => `${utc.format(new Date(iso))} UTC`
  const named = (claims: { name: string; at: string }[]) =>
    claims.map((c) => ({ name: isolateName(c.name), on: when(c.at) }))
  switch (stand.kind) {
    case 'none':
      return [g.standNone]
    case 'claims':
      return [g.standClaims(stand.claims.length, stand.threshold, named(stand.claims)), g.circleOnly]
    case 'releasing':
      return [
        g.standReleasing(when(stand.heirsAt), owner),
        ...(stand.claims.length ? [g.startedByClaims(named(stand.claims)), g.circleOnly] : []),
      ]
    case 'cancelled':
      return [g.standCancelled(when(stand.at), owner)]
    case 'released':
      return [g.standReleased(when(stand.at))]
  }
}

const unknownLink = (reply: FastifyReply, text: PageText) =>
  sendPage(reply, text, 404, text.linkNotValidTitle, [text.guardian.unknownLink])
const badAction = (reply: FastifyReply, text: PageText) =>
  sendPage(reply, text, 404, text.linkNotValidTitle, [text.guardian.badAction])

export function registerGuardianPages(
  app: FastifyInstance,
  ctx: ServiceContext,
  authFailures?: AuthFailureLimiter,
): void {
  app.get<{ Params: { token: string; action: Action } }>(
    '/guardian/:token/:action',
    async (request, reply) => {
      const { text } = textFor(request)
      const g = text.guardian
      const found = await findGuardian(ctx, request)
      if (!found) return answerUnknownToken(request, reply, authFailures, () => unknownLink(reply, text))
      const { guardian, vault } = found
      const owner = isolateName(vault.owner_email)
      const { threshold } = SSS_PRESET_SHAPE[vault.sss_preset]
      const status = guardian.status as Status
      switch (request.params.action) {
        case 'accept':
          return sendPage(
            reply,
            text,
            200,
            g.acceptTitle,
            [g.asksYou(owner, isolateName(guardian.name), status), g.shareExplained(threshold)],
            { label: g.acceptButton },
          )
        case 'decline':
          return sendPage(
            reply,
            text,
            200,
            g.declineTitle,
            [g.asksYou(owner, isolateName(guardian.name), status)],
            {
              label: g.declineButton,
            },
          )
        case 'claim': {
          const stand = await standParagraphs(ctx, found, request)
          // Once a release is under way or done there is nothing left to claim: no button.
          return sendPage(
            reply,
            text,
            200,
            g.claimTitle,
            vault.state === 'active'
              ? [g.claimWhen(owner), g.claimThreshold(threshold, owner), ...stand]
              : stand,
            vault.state === 'active' ? { label: g.claimButton } : undefined,
          )
        }
      }
      return badAction(reply, text)
    },
  )

  app.post<{ Params: { token: string; action: Action } }>(
    '/guardian/:token/:action',
    { onRequest: refuseForeignOrigin(ctx) },
    async (request, reply) => {
      const { text } = textFor(request)
      const g = text.guardian
      const { token, action } = request.params
      const before = await findGuardian(ctx, request)
      if (!before) return answerUnknownToken(request, reply, authFailures, () => unknownLink(reply, text))
      if (action !== 'accept' && action !== 'decline' && action !== 'claim') return badAction(reply, text)
      const owner = isolateName(before.vault.owner_email)
      try {
        if (action === 'accept' || action === 'decline') {
          const { guardian } = await answerInvitation(
            ctx,
            token,
            action === 'accept' ? 'accepted' : 'declined',
          )
          return action === 'accept'
            ? sendPage(reply, text, 200, g.acceptedTitle, [
                g.accepted(isolateName(guardian.name), owner),
                g.keepInvitation,
              ])
            : sendPage(reply, text, 200, g.declinedTitle, [g.declined(owner)])
        }
        const result = await claimRelease(ctx, token)
        const stand = await standParagraphs(ctx, result.found, request)
        if (result.outcome === 'already_releasing') {
          return sendPage(reply, text, 200, g.alreadyReleasingTitle, [
            g.alreadyReleasing(owner, result.found.vault.state),
            ...stand,
          ])
        }
        if (result.outcome === 'release_started') {
          return sendPage(reply, text, 200, g.releaseStartedTitle, [
            g.releaseStarted(result.claims, owner),
            ...stand,
          ])
        }
        return sendPage(reply, text, 200, g.claimRecordedTitle, [
          g.claimRecorded(result.claims, result.threshold),
          ...stand,
        ])
      } catch (error) {
        if (!(error instanceof ApiError)) throw error
        if (error.status === 404) return unknownLink(reply, text)
        if (error.status !== 409) throw error
        // What made it impossible, read again and said in the page's language.
        const now = await findGuardian(ctx, request)
        if (!now) return unknownLink(reply, text)
        const status = now.guardian.status as Status
        const reason =
          action !== 'claim'
            ? g.alreadyAnswered(status, owner)
            : status !== 'accepted'
              ? g.claimNeedsAcceptance(status)
              : g.claimWrongTrigger(now.vault.release_trigger)
        return sendPage(reply, text, 409, text.notPossibleTitle, [reason])
      }
    },
  )
}
