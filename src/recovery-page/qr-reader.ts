// A kit's QR code read in the page: from a photo (canvas + jsQR, as the app's Recovery screen does) or
// from the camera (getUserMedia, a frame at a time). Nothing leaves the page.

import jsQR from 'jsqr'
import { AppError } from '../shared/app-error'
import type { PageText } from './page-text'

/** A photo or camera frame without a readable kit code: its words are the heir's. */
export class QrReadError extends AppError {
  override readonly name = 'QrReadError'
  constructor(message: string) {
    super({ code: 'QR_UNREADABLE', userMessage: message })
  }
}

function codeIn(context: CanvasRenderingContext2D, width: number, height: number): string | null {
  const pixels = context.getImageData(0, 0, width, height)
  return jsQR(pixels.data, width, height, { inversionAttempts: 'attemptBoth' })?.data || null
}

/** The text of the QR code in a photo or scan; QrReadError in the page's words otherwise. */
export async function qrFromImage(file: File, t: PageText): Promise<string> {
  let bitmap: ImageBitmap
  try {
    bitmap = await createImageBitmap(file)
  } catch {
    throw new QrReadError(t.qrNotAnImage(file.name))
  }
  // Large photos are scaled down so decoding stays quick; QR codes survive it.
  const scale = Math.min(1, 1600 / Math.max(bitmap.width, bitmap.height))
  const width = Math.max(1, Math.round(bitmap.width * scale))
  const height = Math.max(1, Math.round(bitmap.height * scale))
  const canvas = document.createElement('canvas')
  canvas.width = width
  canvas.height = height
  const context = canvas.getContext('2d', { willReadFrequently: true })
  if (!context) throw new QrReadError(t.qrNotAnImage(file.name))
  context.drawImage(bitmap, 0, 0, width, height)
  bitmap.close()
  const code = codeIn(context, width, height)
  if (!code) throw new QrReadError(t.qrNoCode(file.name))
  return code
}

/**
 * Shows the camera in `video` and resolves with the first QR code seen; stop() (or the signal) ends it.
 * Rejects with QrReadError when the camera cannot be used.
 */
export async function qrFromCamera(
  video: HTMLVideoElement,
  signal: AbortSignal,
  t: PageText,
): Promise<string> {
  if (!navigator.mediaDevices?.getUserMedia)
    throw new QrReadError(t.cameraFailed('no camera in this browser'))
  let stream: MediaStream
  try {
    stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false })
  } catch (error) {
    throw new QrReadError(t.cameraFailed((error as Error).name || String(error)))
  }
  const stop = () => {
    for (const track of stream.getTracks()) track.stop()
    video.srcObject = null
  }
  try {
    video.srcObject = stream
    await video.play()
    const canvas = document.createElement('canvas')
    const context = canvas.getContext('2d', { willReadFrequently: true })
    if (!context) throw new QrReadError(t.cameraFailed('no canvas'))
    for (;;) {
      if (signal.aborted) throw signal.reason
      await new Promise((resolve) => setTimeout(resolve, 150))
      const width = video.videoWidth
      const height = video.videoHeight
      if (!width || !height) continue
      const scale = Math.min(1, 960 / Math.max(width, height))
      canvas.width = Math.round(width * scale)
      canvas.height = Math.round(height * scale)
      context.drawImage(video, 0, 0, canvas.width, canvas.height)
      const code = codeIn(context, canvas.width, canvas.height)
      if (code) return code
    }
  } finally {
    stop()
  }
}
