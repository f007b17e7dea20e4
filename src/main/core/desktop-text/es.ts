// The words outside the window in Spanish: the whole desktop catalogue (en.ts), so the tray and the
// notifications of a Spanish system never mix languages.
import type { LocaleFormat } from '../../../shared/locale-format'
import type { Translation } from '../../../shared/text-catalogue'
import type { DesktopCatalogue } from './en'

export function spanish(f: LocaleFormat): Translation<DesktopCatalogue> {
  const days = (n: number) => f.count(n, { one: 'día', other: 'días' })
  const files = (n: number) => f.count(n, { one: 'archivo', other: 'archivos' })
  return {
    tray: {
      appName: 'Vault Desktop',
      openApp: 'Abrir Vault Desktop',
      quit: 'Salir',
      tooltip: (state: string) => `Vault Desktop — ${state}`,
      noVaults: 'Aún no hay bóvedas',
      noCheckIns: 'No hay confirmaciones previstas',
      releasing: (label: string, daysLeft: number) =>
        `${label} se está liberando: quedan ${days(daysLeft)} para cancelar`,
      nextCheckIn: (label: string, when: string) => `Próxima confirmación: ${label} ${when}`,
      overdueCheckIn: (label: string, when: string) =>
        `La confirmación de ${label} está vencida (vencía ${when})`,
      releasingItem: (label: string) => `${label} se está liberando — abrir para cancelar`,
      readinessItem: (label: string, summary: string) => `${label}: ${summary}`,
      ready: 'lista',
      checkInNow: (label: string) => `Confirmar ahora (${label})`,
      openVault: (label: string) => `Abrir ${label}`,
    },
    readiness: {
      summary: (stepsLeft: number) =>
        stepsLeft === 0
          ? 'Lista'
          : `${f.plural(stepsLeft, { one: 'Falta', other: 'Faltan' })} ${f.count(stepsLeft, { one: 'paso', other: 'pasos' })}`,
      creditsShort: (summary: string) => `quedan pocos créditos · ${summary}`,
    },
    due: {
      now: 'ahora',
      hoursAgo: (hours: number) => `hace ${f.count(hours, { one: 'hora', other: 'horas' })}`,
      daysAgo: (count: number) => `hace ${days(count)}`,
      inHours: (hours: number) => `en ${f.count(hours, { one: 'hora', other: 'horas' })}`,
      inDays: (count: number) => `en ${days(count)}`,
    },
    reminders: {
      beforeTitle: (when: string) => `Confirmación pendiente ${when}`,
      beforeBody: (label: string, dueAt: number) =>
        `${label}: confirme antes del ${f.dateTime(dueAt)} para que la liberación no empiece. Cada confirmación cuesta 2 créditos.`,
      deadlineTitle: 'La confirmación vence ahora',
      deadlineBody: (label: string) =>
        `${label}: ha llegado el plazo de la confirmación. Confirme ahora para que la liberación no empiece.`,
      overdueTitle: 'Confirmación vencida',
      overdueBody: (label: string, when: string) =>
        `${label}: la confirmación vencía ${when}. Confirme ahora; si el servicio empieza la liberación, tiene 30 días para cancelarla.`,
    },
    notices: {
      releasingTitle: (label: string) => `${label} se está liberando`,
      releasingBody: (daysLeft: number) =>
        `Ha empezado la liberación a sus herederos. Le quedan ${days(daysLeft)} para cancelarla si no era su intención: abra la bóveda y elija «Cancelar la liberación».`,
      claimTitle: (guardian: string, label: string) => `${guardian} ha reclamado ${label}`,
      claimBody: (guardian: string, claimedAt: number, count: number, needed: number) => {
        const claimedOn = f.date(claimedAt)
        const left = needed - count
        return `${guardian}, guardián, dijo el ${claimedOn} que usted ha fallecido o ya no puede actuar: ${count} de ${needed} reclamaciones necesarias para empezar una liberación. Si está bien, hable ahora con sus guardianes. ${left === 1 ? 'Una reclamación más empieza' : `${left} reclamaciones más empiezan`} una liberación, que puede cancelar en esta aplicación durante 30 días.`
      },
      creditsLowTitle: (label: string) => `${label}: quedan pocos créditos para las confirmaciones`,
      creditsLowBody: (balance: number, daysLeft: number, where: string) =>
        `El saldo de ${balance} créditos paga las confirmaciones de unos ${daysLeft} días más. Una confirmación que no se puede pagar deja que la bóveda se libere por accidente. ${where}`,
      addCreditsHere: 'Añada créditos en Ajustes → Créditos.',
      buyCreditsAt: (page: string) =>
        `Compre créditos en la página del operador de su Vault Service: ${page}`,
      buyCreditsUnknown:
        'Su Vault Service no dice dónde comprar créditos: pida al operador de este servicio que añada créditos a su cuenta.',
      uploadsFailedTitle: (failed: number) =>
        `${f.count(failed, { one: 'subida ha fallado', other: 'subidas han fallado' })}`,
      uploadsFailedReason: 'vea el motivo en la lista de subidas.',
      backupDoneTitle: (done: number) => `Copia terminada: ${files(done)}`,
      backupDoneBody: (label: string, done: number, credits: number) =>
        `${label}: ${files(done)} cifrados y guardados por ${f.count(credits, { one: 'crédito', other: 'créditos' })}.`,
      unlockCheckInFailedTitle: (label: string) => `${label}: la confirmación al desbloquear no se completó`,
      uploadListProblemTitle: 'La lista de subidas necesita atención',
      manifestProblemTitle: (label: string) => `${label}: la lista de archivos necesita atención`,
      activityHistoryProblemTitle: 'El historial de actividad necesita atención',
    },
    notifications: {
      checkInNow: 'Confirmar ahora',
      checkedInTitle: 'Confirmado',
      checkedInBody: (label: string, daysLeft: number) =>
        `${label}: la próxima confirmación vence en ${days(daysLeft)}.`,
      checkInFailedTitle: 'La confirmación ha fallado',
    },
    pickers: {
      filesToBackUp: 'Elija los archivos que quiere guardar',
      folderToBackUp: 'Elija una carpeta que quiere guardar',
      recoveryFolder: 'Elija dónde poner los archivos recuperados',
      qrPhoto: 'Elija una foto del código QR',
      images: 'Imágenes',
      saveKitPdf: 'Guardar el kit del guardián como PDF',
    },
  }
}
