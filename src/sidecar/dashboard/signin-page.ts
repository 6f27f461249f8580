import { html, type SafeHtml } from './html.js'

/** The sign-in form: the KIT_API_TOKEN (or the token `bankrec start` printed) opens a session cookie. */
export function renderSignIn(next: string, refused: boolean): SafeHtml {
  return html`<section class="signin wide">
    <h2>Sign in</h2>
    <p>
      Paste the API token: <code>KIT_API_TOKEN</code>, or the one <code>bankrec start</code> printed in
      sandbox mode.
    </p>
    ${refused && html`<p class="notice error">That token was refused.</p>`}
    <form id="signin-form" method="post" action="/dashboard/login">
      <input type="hidden" name="next" value="${next}" />
      <input
        name="token"
        type="password"
        placeholder="API token"
        autocomplete="current-password"
        aria-label="API token"
        required
        autofocus
      />
      <button type="submit" class="primary">Sign in</button>
    </form>
  </section>`
}
