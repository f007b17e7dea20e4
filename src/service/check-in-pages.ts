// The page behind the one-step check-in link of a reminder e-mail. GET shows one "Check in now" button and
// changes nothing (mail scanners fetch links); POST to the same address checks in. No API key: the token in
// the path is the credential, so an unknown one counts as a failed authentication.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isolateName } from '../shared/untrusted-text'
import { type CheckInLinkState, inspectCheckInLink, useCheckInLink } from './check-in-links'
import type { ServiceContext } from './context'
import { answerUnknownToken, refuseForeignOrigin, sendPage, textFor } from './html-page'
import type { AuthFailureLimiter } from './rate-limit'

/** The page for a link that cannot check in (unknown, used, outdated, releasing). */
async function refusal(
  request: FastifyRequest,
  reply: FastifyReply,
  why: Exclude<CheckInLinkState, { state: 'ready' }>,
  authFailures: AuthFailureLimiter | undefined,
) {
  const { text, format } = textFor(request)
  const c = text.checkIn
  switch (why.state) {
    case 'unknown':
      return answerUnknownToken(request, reply, authFailures, () =>
        sendPage(reply, text, 404, text.linkNotValidTitle, [c.unknownLink]),
      )
    case 'used':
      return sendPage(reply, text, 410, c.usedTitle, [
        c.used(format.date(why.usedAt), format.date(why.nextDue)),
      ])
    case 'checked-in-since':
      return sendPage(reply, text, 410, c.expiredTitle, [c.checkedInSince(format.date(why.nextDue))])
    case 'no-switch':
      return sendPage(reply, text, 410, c.expiredTitle, [c.noSwitchAnyMore])
    case 'links-off':
      return sendPage(reply, text, 410, c.expiredTitle, [c.linksOff])
    case 'releasing':
      return sendPage(reply, text, 409, c.releasingTitle, [
        c.releasing(isolateName(why.label), why.vaultState),
      ])
  }
}

export function registerCheckInPages(
  app: FastifyInstance,
  ctx: ServiceContext,
  authFailures?: AuthFailureLimiter,
): void {
  app.get<{ Params: { token: string } }>('/check-in/:token', async (request, reply) => {
    const link = await inspectCheckInLink(ctx, request.params.token)
    if (link.state !== 'ready') return refusal(request, reply, link, authFailures)
    const { text, format } = textFor(request)
    const c = text.checkIn
    return sendPage(
      reply,
      text,
      200,
      c.title,
      [c.intro(isolateName(link.label), format.date(link.dueAt)), c.whatItDoes(link.periodDays, link.cost)],
      { label: c.button },
    )
  })

  app.post<{ Params: { token: string } }>(
    '/check-in/:token',
    { onRequest: refuseForeignOrigin(ctx) },
    async (request, reply) => {
      const result = await useCheckInLink(ctx, request.params.token)
      if (result.outcome === 'refused') return refusal(request, reply, result.why, authFailures)
      const { text, format } = textFor(request)
      const c = text.checkIn
      if (result.outcome === 'not-enough-credits') {
        return sendPage(reply, text, 402, c.notEnoughCreditsTitle, [
          c.notEnoughCredits(result.cost, result.balance),
        ])
      }
      return sendPage(reply, text, 200, c.doneTitle, [
        c.done(isolateName(result.label), format.date(result.nextDue)),
      ])
    },
  )
}
