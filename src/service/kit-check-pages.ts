// The guardian's "Check my kit" page (extension kit-check): at /guardian/<guardian token>/check (the link in
// the invitation e-mail) and /kit-check/<kit-check token> (the link in a reminder, which can do nothing
// else). GET shows the form and changes nothing; POST checks the typed code. No API key: the token in the
// path is the credential, so an unknown one counts as a failed authentication, and each token is held to
// otherPost's rate so the form cannot be used to try codes at speed.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { KitCheckResult } from '../shared/api'
import { isolateName } from '../shared/untrusted-text'
import type { ServiceContext } from './context'
import { answerUnknownToken, refuseForeignOrigin, sendPage, textFor } from './html-page'
import { checkKit, type KitCheckGuardian, kitCheckGuardian, kitChecksOf } from './kit-checks'
import type { AuthFailureLimiter, RateLimiter } from './rate-limit'
import { hashSecretText } from './secrets'

const CODE_FIELD = 'code'

export function registerKitCheckPages(
  app: FastifyInstance,
  ctx: ServiceContext,
  authFailures: AuthFailureLimiter | undefined,
  limiter: RateLimiter,
): void {
  const unknownLink = (request: FastifyRequest, reply: FastifyReply) =>
    answerUnknownToken(request, reply, authFailures, () => {
      const { text } = textFor(request)
      return sendPage(reply, text, 404, text.linkNotValidTitle, [text.kitCheck.unknownLink])
    })

  /** The form, under the outcome of a code just checked when there is one. */
  async function formPage(
    request: FastifyRequest,
    reply: FastifyReply,
    guardian: KitCheckGuardian,
    before?: { status: number; title: string; paragraph: string; typed: string },
  ) {
    const { text, format } = textFor(request)
    const k = text.kitCheck
    const owner = isolateName(guardian.ownerEmail)
    const standing = (await kitChecksOf(ctx, guardian.vaultId)).get(guardian.guardianId)
    const paragraphs = [
      // After a wrong code, what went wrong leads; the introduction was read already.
      before ? before.paragraph : k.intro(isolateName(guardian.guardianName), owner),
      k.onlyTheCode,
      ...(standing?.confirmedAt ? [k.lastConfirmed(format.date(standing.confirmedAt))] : []),
    ]
    return sendPage(reply, text, before?.status ?? 200, before?.title ?? k.title, paragraphs, {
      label: k.button,
      field: { name: CODE_FIELD, label: k.fieldLabel, value: before?.typed },
    })
  }

  async function answer(
    request: FastifyRequest,
    reply: FastifyReply,
    guardian: KitCheckGuardian,
    typed: string,
  ) {
    const { text, format } = textFor(request)
    const k = text.kitCheck
    const owner = isolateName(guardian.ownerEmail)
    const result: KitCheckResult = await checkKit(ctx, guardian, typed)
    switch (result.outcome) {
      case 'confirmed':
        return sendPage(reply, text, 200, k.confirmedTitle, [k.confirmed(owner)])
      case 'older-split':
        return sendPage(reply, text, 409, k.olderSplitTitle, [
          k.olderSplit(owner, result.newSplitAt ? format.date(result.newSplitAt) : null),
        ])
      case 'not-registered':
        return sendPage(reply, text, 409, k.notRegisteredTitle, [k.notRegistered(owner)])
      case 'other-guardian':
        return formPage(request, reply, guardian, {
          status: 422,
          title: k.otherGuardianTitle,
          paragraph: k.otherGuardian(owner),
          typed: '',
        })
      case 'unknown':
        return formPage(request, reply, guardian, {
          status: 422,
          title: k.unknownTitle,
          paragraph: k.unknown(owner),
          typed: '',
        })
      case 'typo':
        // What was typed comes back in the field, to be corrected rather than typed again.
        return formPage(request, reply, guardian, {
          status: 422,
          title: k.typoTitle,
          paragraph: k.typo,
          typed: typed.slice(0, 40),
        })
    }
  }

  for (const path of ['/guardian/:token/check', '/kit-check/:token']) {
    app.get<{ Params: { token: string } }>(path, async (request, reply) => {
      const guardian = await kitCheckGuardian(ctx, request.params.token)
      if (!guardian) return unknownLink(request, reply)
      return formPage(request, reply, guardian)
    })

    app.post<{ Params: { token: string } }>(
      path,
      { onRequest: refuseForeignOrigin(ctx) },
      async (request, reply) => {
        const guardian = await kitCheckGuardian(ctx, request.params.token)
        if (!guardian) return unknownLink(request, reply)
        const decision = await limiter.check(`kit-check:${hashSecretText(request.params.token)}`, 'otherPost')
        if (!decision.allowed) {
          const { text } = textFor(request)
          reply.header('retry-after', String(decision.retryAfterSeconds))
          return sendPage(reply, text, 429, text.tooManyAttemptsTitle, [
            text.kitCheck.tooMany(decision.limit, decision.retryAfterSeconds),
          ])
        }
        const typed = request.body instanceof URLSearchParams ? (request.body.get(CODE_FIELD) ?? '') : ''
        return answer(request, reply, guardian, typed)
      },
    )
  }
}
