// @ts-check
/* The page's status line, its failure banner and the token prompt. */
import { hasToken, storeToken } from './api.js';
import { $, $as, setText } from './dom.js';
import { state } from './state.js';

/** @param {boolean} ok @param {string} message */
export function setStatus(ok, message) {
  $('status-dot').className = `dot ${ok ? 'ok' : 'bad'}`;
  setText('status-text', message);
}

/**
 * Stop reading and ask for a bearer token; `message` says why (a refused token).
 * @param {string} message
 */
export function showToken(message) {
  state.locked = true;
  $('token-panel').hidden = false;
  $('content').hidden = true;
  $('replays-view').hidden = true;
  setText('token-error', message);
  setStatus(false, 'waiting for a token');
  $as('token-input', HTMLInputElement).focus();
}

/** The API answered 401: forget the token it refused, if any, and ask for one. */
export function askForToken() {
  const hadToken = hasToken();
  storeToken(null);
  showToken(hadToken ? 'that token was refused; try again' : '');
}

/** @param {string} message */
export function showError(message) {
  $('error-banner').hidden = false;
  setText('error-banner', message);
}

export function hideError() {
  $('error-banner').hidden = true;
}
