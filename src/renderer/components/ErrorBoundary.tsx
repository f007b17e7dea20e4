import { Component, type ErrorInfo, type ReactNode } from 'react'

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
      <div className="panel error-panel" role="alert">
        <h2>This screen ran into a problem</h2>
        <p>
          Nothing in your vault was changed. The app reported: <code>{this.state.error.message}</code>
        </p>
        <p>Try again; if it happens every time, restart Vault Desktop.</p>
        <button type="button" className="button" onClick={() => this.setState({ error: undefined })}>
          Try again
        </button>
      </div>
    )
  }
}
