// The player's account: the server's session (an HttpOnly cookie) and the requests that need its CSRF token.

/** The CSRF token of the session, from its cookie (sent back in a header on every change). */
function csrfToken() {
  const found = document.cookie.split("; ").find((part) => part.startsWith("chinchon_csrf="));
  return found ? decodeURIComponent(found.slice("chinchon_csrf=".length)) : "";
}

/** Headers for a request that changes something: JSON, the language, and the session's CSRF token. */
export function changeHeaders(lang) {
  const headers = { "Content-Type": "application/json", "Accept-Language": lang };
  const token = csrfToken();
  if (token) headers["X-CSRF-Token"] = token;
  return headers;
}

async function answer(response) {
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error((data.error && data.error.message) || `HTTP ${response.status}`);
    error.code = data.error && data.error.code;
    throw error;
  }
  return data;
}

/** POST a JSON body with the session's CSRF token; the answer, or an Error with the server's message. */
export async function postJson(path, body, lang) {
  return answer(await fetch(path, { method: "POST", headers: changeHeaders(lang), body: JSON.stringify(body || {}) }));
}

/** GET JSON; the answer, or an Error with the server's message. */
export async function getJson(path, lang) {
  return answer(await fetch(path, { headers: { "Accept-Language": lang } }));
}

/** The logged-in account ({name}) or null. */
export async function currentAccount(lang) {
  try {
    return (await getJson("/api/account", lang)).account;
  } catch {
    return null;
  }
}

/** The guest seats this browser holds ({code, token}), to become the account's at registration or login. */
export function heldSeats() {
  const seats = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (!key || !key.startsWith("chinchon.seat.")) continue;
      const value = JSON.parse(localStorage.getItem(key));
      if (value && value.token) seats.push({ code: key.slice("chinchon.seat.".length), token: value.token });
    }
  } catch {
    /* no storage: no seats */
  }
  return seats.slice(0, 50);
}

/** The seat the account holds in a room (null if none), from any device it logged in on. */
export async function accountSeat(code, lang) {
  try {
    const found = await getJson(`/api/account/seats?room=${encodeURIComponent(code)}`, lang);
    return found.seats.length ? found.seats[0] : null;
  } catch {
    return null;
  }
}
