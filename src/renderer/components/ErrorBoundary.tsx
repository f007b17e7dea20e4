import { Component, type ErrorInfo, type ReactNode } from 'react'
import { coreLang, langOf, text } from '../text'

const t = text.errors

interface Props {
  children: ReactNode
}
interface State {
  error: Error | undefined
}

/** Keeps one broken screen from blanking the window, and tells the user what to do. */
export class ErrorBoundary extends Component<Props, State> {
  override state: State = { error: undefined }

  static getDerivedStateFromError(error: Error): State {
    return { error }
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('Screen failed to render', error, info.componentStack)
  }

  override render(): ReactNode {
    if (!this.state.error) return this.props.children
    return (
      <div className="panel error-panel" role="alert" lang={langOf('errors')}>
        <h2>{t.screenFailed}</h2>
        <p>
          {t.screenFailedDetail} <code lang={coreLang}>{this.state.error.message}</code>
        </p>
        <p>{t.screenFailedAdvice}</p>
        <button type="button" className="button" onClick={() => this.setState({ error: undefined })}>
          {t.retry}
        </button>
      </div>
    )
  }
}
