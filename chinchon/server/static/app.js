// The client's state, its connection to the server and the actions the controls call.

import { patch } from "./dom.js";
import { _, applyLanguage, browserLanguage, loadLanguage } from "./i18n.js";
import { render, legal, currentLevel } from "./render.js";
import { cardKey } from "./cards.js";
import { accountSeat, changeHeaders, currentAccount } from "./account.js";
import { pageActions, pageRoute } from "./pages.js";
import { VERSION, actionText, applyEvent, follows, happenedAfter } from "./state.js";

const saved = {
  get(key, fallback) {
    try {
      const value = localStorage.getItem(`chinchon.${key}`);
      return value === null ? fallback : JSON.parse(value);
    } catch {
      return fallback;
    }
  },
  set(key, value) {
    try {
      localStorage.setItem(`chinchon.${key}`, JSON.stringify(value));
    } catch {
      /* private mode: the page still works, without memory */
    }
  },
  remove(key) {
    try {
      localStorage.removeItem(`chinchon.${key}`);
    } catch {
      /* nothing to forget */
    }
  },
};

const state = {
  route: { page: "home" },
  name: saved.get("name", ""),
  lang: saved.get("lang", null) || browserLanguage(),
  fourColour: saved.get("fourColour", false),
  form: { preset: "fournier", seats: 2, bot_level: "strong", public: true, turn: "", limit: "", ...saved.get("form", {}) },
  joinCode: "",
  lobby: [],
  lobbyChat: [],
  chat: [],
  log: [],
  // What just happened, newest last: each event applied since the last whole view (state.js), for animations.
  happened: [],
  // The match the log's moves belong to; undefined from a start or rematch event until the next view names it.
  logMatch: undefined,
  chatText: "",
  unread: 0,
  conn: "closed",
  role: null,
  view: null,
  order: [],
  sortBy: saved.get("sortBy", "suit"),
  selected: null,
  drag: null,
  panel: null,
  toast: null,
  needJoin: false,
  roomInfo: null,
  roomMissing: false,
  copied: false,
  dealTotals: [],
  resultSeen: null,
  totalsMatch: null,
  clockSkew: 0,
  // The players' pages: the logged-in account (or null), the data of the page shown, the replay's step.
  account: null,
  pageData: null,
  pageError: null,
  replayStep: 0,
  // The analysis shown in the replay: {game, seat, status, done, total, doc, error}, or null.
  analysis: null,
};
state.form.bot_level = currentLevel(state.form.bot_level);  // a form saved with an old level's name

// -- drawing ---------------------------------------------------------------------------------

const root = document.getElementById("app");
let shown = null;
let pending = false;

function draw() {
  pending = false;
  applyLanguage();
  shown = patch(root, render(state, actions), shown);
}

function update(changes) {
  Object.assign(state, changes || {});
  if (!pending) {
    pending = true;
    requestAnimationFrame(draw);
  }
}

let toastTimer = null;
function toast(text) {
  clearTimeout(toastTimer);
  update({ toast: text });
  toastTimer = setTimeout(() => update({ toast: null }), 4000);
}

// -- the hand's order --------------------------------------------------------------------------

function sorted(hand, by, arrangement) {
  if (by === "melds" && arrangement) {
    const left = [...hand];
    const out = [];
    for (const meld of arrangement.melds) {
      for (const c of meld) {
        const i = left.indexOf(c);
        if (i >= 0) out.push(...left.splice(i, 1));
      }
    }
    return out.concat(left.sort((x, y) => cardKey(x, "suit") - cardKey(y, "suit")));
  }
  return [...hand].sort((x, y) => cardKey(x, by === "rank" ? "rank" : "suit") - cardKey(y, by === "rank" ? "rank" : "suit"));
}

function reconcile(order, hand) {
  const left = [...hand];
  const out = [];
  for (const c of order) {
    const i = left.indexOf(c);
    if (i >= 0) out.push(...left.splice(i, 1));
  }
  return out.concat(left);
}

// -- the connection --------------------------------------------------------------------------

let socket = null;
// The events of an action folded so far: the page shows the state an action settles in, not the steps between.
let folding = null;
let hello = null;
let lastEvent = null;
let retries = 0;
let retryTimer = null;
let lastHeard = Date.now();

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify(message));
    return true;
  }
  return false;
}

function open() {
  clearTimeout(retryTimer);
  if (socket) {
    socket.onclose = null;
    socket.close();
  }
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  socket = ws;
  folding = null;
  update({ conn: "connecting" });
  ws.onopen = () => {
    retries = 0;
    lastHeard = Date.now();
    update({ conn: "open" });
    const message = { ...hello, version: VERSION, lang: state.lang };
    // With the state kept, the server sends the events missed (or the whole view when it keeps them no more).
    if (message.room && lastEvent !== null && state.view && state.view.room === message.room) message.last_event = lastEvent;
    ws.send(JSON.stringify(message));
  };
  ws.onmessage = (e) => {
    if (socket !== ws) return; // a socket being replaced (a resync): its last frames are not this state's
    lastHeard = Date.now();
    let message;
    try {
      message = JSON.parse(e.data);
    } catch {
      return;
    }
    receive(message);
  };
  ws.onclose = () => {
    if (socket !== ws) return;
    socket = null;
    update({ conn: "closed" });
    if (hello) retryTimer = setTimeout(open, Math.min(8000, 300 * 2 ** retries++));
  };
}

function connect(message) {
  hello = message;
  lastEvent = null;
  open();
}

function disconnect() {
  hello = null;
  if (socket) {
    socket.onclose = null;
    socket.close();
    socket = null;
  }
}

/** Start again from the server's whole view: a hello without the last event (a gap in the events). */
function resync() {
  lastEvent = null;
  open();
}

function onEvent(m) {
  if (!follows(folding || state.view, m)) {
    resync();
    return;
  }
  const e = m.event;
  const changes = { happened: happenedAfter(state.happened, m) };
  const text = actionText(e);
  if (text !== null) {
    // The card taken from the discard pile is in the event; the log reads it as before.
    const entry = { n: m.n, kind: "action", seat: e.seat, action: text, card: e.kind === "drew" ? e.card : undefined, text: m.text };
    changes.log = state.log.concat([entry]).slice(-40);
  } else if (e.kind === "start" || e.kind === "rematch") {
    Object.assign(changes, { log: [], logMatch: undefined });
  }
  update(changes);
  folding = applyEvent(folding || state.view, m);
  if (m.settled) {
    const view = folding;
    folding = null;
    setView(view);
  }
}

function setView(view, whole = false) {
  lastEvent = view.state;
  if (whole) state.happened = [];
  if (state.view && state.view.room === view.room && state.view.seat !== null && view.seat === null) {
    saved.remove(`seat.${view.room}`); // removed from the seat: the token holds nothing now
  }
  const changes = { view, roomMissing: false, presenceAt: Date.now(), logMatch: view.match };
  // A view of another match clears the moves of the last one, even when its rematch event never came (a resync
  // sends only the view once the server no longer keeps the events missed).
  if (state.logMatch !== undefined && state.logMatch !== view.match) changes.log = [];
  const g = view.game;
  if (g) {
    const old = state.view && state.view.game;
    const newDeal = !old || old.deal_number !== g.deal_number || state.view.match !== view.match;
    let order = state.sortBy === "custom" && !newDeal ? reconcile(state.order, g.hand) : sorted(g.hand, state.sortBy, g.arrangement);
    if (state.sortBy === "custom" && newDeal) order = sorted(g.hand, "suit", g.arrangement);
    changes.order = order;
    const keep = state.selected !== null && order[state.selected] === state.order[state.selected] && g.phase === "discard";
    changes.selected = keep ? state.selected : null;
    // The totals after each deal, for the chart; a rematch starts them again.
    const rematched = (Boolean(old) && state.view.match !== view.match)
      || (!old && state.totalsMatch !== null && state.totalsMatch !== view.match);
    const seen = rematched ? null : state.resultSeen;
    let totals = rematched ? [] : state.dealTotals;
    if (g.previous_result && seen !== null && g.deal_number > seen && !g.match_over) changes.panel = "result";
    if (seen === null || g.deal_number > seen) {
      totals = totals.length ? totals.slice() : [g.scores.map(() => 0)];
      if (seen === null && g.deal_number > 1) totals = [];
      if (g.deal_number > 1) totals.push([...g.scores]);
      changes.resultSeen = g.deal_number;
    }
    const last = totals.length ? totals[totals.length - 1].join() : null;
    if (g.match_over && last !== g.scores.join()) totals = totals.concat([[...g.scores]]);
    changes.dealTotals = totals;
    // Kept for the room, so that a reload or a return draws the same chart (written when it changes, not every view).
    if (totals !== state.dealTotals || "resultSeen" in changes) {
      saved.set(`totals.${view.room}`, { match: view.match, seen: changes.resultSeen ?? seen, totals });
    }
    if (state.panel === "close" && !legal(g).close.size) changes.panel = null;
  }
  update(changes);
  if (state.autoStart === view.room && view.status === "waiting" && view.seat !== null && view.seats[view.seat].creator) {
    state.autoStart = null;
    send({ type: "start" });
  }
}

function receive(m) {
  switch (m.type) {
    case "welcome":
      update({ role: m.role });
      break;
    case "view":
      setView(m, true);
      break;
    case "event":
      onEvent(m);
      break;
    case "presence":
      if (state.view && state.view.room === m.room) {
        update({ view: { ...state.view, seats: m.seats, watchers: m.watchers }, presenceAt: Date.now() });
      }
      break;
    case "chat":
      if (m.room) {
        update({ chat: state.chat.concat([m]).slice(-100), unread: state.panel === "chat" ? 0 : state.unread + 1 });
      } else {
        update({ lobbyChat: state.lobbyChat.concat([m]).slice(-100) });
      }
      break;
    case "lobby":
      update({ lobby: m.rooms });
      break;
    case "pong":
      if (typeof m.t === "number") update({ clockSkew: m.time - (Date.now() / 1000 + m.t) / 2 });
      break;
    case "error":
      if (m.code === "bad_version") {
        location.reload(); // a page older than the server: its new files speak the server's version
        return;
      }
      if (m.code === "bad_token" && state.route.page === "room") {
        saved.remove(`seat.${state.route.code}`);
        disconnect();
        update({ needJoin: true });
      } else if (m.code === "no_room" && state.route.page === "room") {
        disconnect();
        update({ roomMissing: true });
      }
      toast(m.message);
      break;
    case "closing":
      toast(_("The server is restarting; reconnecting…"));
      break;
    default:
      break;
  }
}

// -- HTTP ---------------------------------------------------------------------------------

async function post(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: changeHeaders(state.lang),
    body: JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error((data.error && data.error.message) || `HTTP ${response.status}`);
  return data;
}

function newId() {
  return Math.random().toString(36).slice(2) + Date.now().toString(36);
}

function codeFrom(text) {
  const t = String(text || "").trim();
  const m = t.match(/room[/=]([A-Za-z0-9-]+)/);
  return (m ? m[1] : t).toUpperCase().replace(/[\s-]/g, "");
}

// -- routes ---------------------------------------------------------------------------------

function route() {
  const params = new URLSearchParams(location.search);
  if (params.get("room")) {
    history.replaceState(null, "", `/#/room/${codeFrom(params.get("room"))}`);
  }
  const page = pageRoute(location.hash);
  if (page) {
    disconnect();
    update({ route: page, view: null, panel: null, needJoin: false });
    actions.loadPage(page);
    return;
  }
  const m = location.hash.match(/^#\/room\/([A-Za-z0-9-]+)/);
  const code = m ? codeFrom(m[1]) : null;
  if (hello && (code ? state.route.code === code : state.route.page === "home")) return;
  if (code) enterRoom(code);
  else enterHome();
}

/** The name the player goes by: the account's when logged in, else the one typed. */
function playerName() {
  return state.account ? state.account.name : state.name.trim();
}

function enterHome() {
  update({ route: { page: "home" }, view: null, needJoin: false, roomMissing: false, panel: null, chat: [], unread: 0 });
  const message = { type: "hello" };
  if (playerName()) message.name = playerName();
  connect(message);
}

function enterRoom(code, watch = false) {
  const fresh = state.route.page !== "room" || state.route.code !== code;
  update({ route: { page: "room", code }, needJoin: false, roomMissing: false, copied: false,
    ...(fresh ? { view: null, chat: [], log: [], logMatch: undefined, unread: 0, panel: null, dealTotals: [], resultSeen: null, totalsMatch: null } : {}) });
  if (fresh) {
    const kept = saved.get(`totals.${code}`, null);
    if (kept && Array.isArray(kept.totals) && typeof kept.seen === "number") {
      update({ dealTotals: kept.totals, resultSeen: kept.seen, totalsMatch: kept.match });
    }
  }
  const seat = saved.get(`seat.${code}`, null);
  if (seat && seat.token) {
    connect({ type: "hello", room: code, token: seat.token });
  } else if (watch) {
    connect({ type: "hello", room: code });
  } else if (state.account) {
    // A seat the account holds (taken on another device) opens with the session alone; else the join form.
    disconnect();
    accountSeat(code, state.lang).then((held) => {
      if (state.route.page !== "room" || state.route.code !== code) return;
      if (held) connect({ type: "hello", room: code });
      else showJoinForm(code);
    });
  } else {
    showJoinForm(code);
  }
}

function showJoinForm(code) {
  disconnect();
  update({ needJoin: true, roomInfo: null });
  fetch(`/api/rooms/${encodeURIComponent(code)}`).then((r) => (r.ok ? r.json() : null)).then((info) => {
    if (info) update({ roomInfo: info });
    else update({ needJoin: false, roomMissing: true });
  }).catch(() => undefined);
}

// -- actions --------------------------------------------------------------------------------

const actions = {
  goHome() {
    if (location.hash) history.pushState(null, "", "/");
    enterHome();
  },
  openRoom(code, watch = false) {
    history.pushState(null, "", `/#/room/${code}`);
    enterRoom(code, watch);
  },
  setName(name) {
    saved.set("name", name);
    update({ name });
  },
  async setLanguage(lang) {
    saved.set("lang", lang);
    try {
      await loadLanguage(lang);
    } catch (e) {
      toast(String(e.message || e));
    }
    update({ lang });
    if (socket && hello) open();
    if (state.route.page === "replay") actions.loadPage(state.route); // its steps are told in the language
  },
  toggleFourColour() {
    saved.set("fourColour", !state.fourColour);
    update({ fourColour: !state.fourColour });
  },
  setForm(changes) {
    const form = { ...state.form, ...changes };
    saved.set("form", form);
    update({ form });
  },
  setJoinCode(joinCode) {
    update({ joinCode });
  },
  setChatText(chatText) {
    update({ chatText });
  },
  async createRoom(startNow) {
    const name = playerName();
    if (!name) {
      toast(_("Give your name first."));
      return;
    }
    const f = state.form;
    const options = {};
    if (f.limit) options.limit = Number(f.limit);
    if (f.options) Object.assign(options, f.options);
    const body = { name, rules: { preset: f.preset, options }, seats: Number(f.seats), bot_level: f.bot_level,
      public: startNow ? false : Boolean(f.public), lang: state.lang };
    if (f.turn) body.turn_seconds = Number(f.turn);
    if (f.rated && state.account && !startNow) body.rated = true;
    try {
      const created = await post("/api/rooms", body);
      saved.set(`seat.${created.code}`, { token: created.token, seat: created.seat });
      if (startNow) state.autoStart = created.code;
      actions.openRoom(created.code);
    } catch (e) {
      toast(e.message);
    }
  },
  joinByCode() {
    const code = codeFrom(state.joinCode);
    if (!code) {
      toast(_("Type a room code."));
      return;
    }
    actions.openRoom(code);
  },
  async joinRoom(code) {
    const name = playerName();
    if (!name) {
      toast(_("Give your name first."));
      return;
    }
    try {
      const joined = await post(`/api/rooms/${encodeURIComponent(code)}/join`, { name });
      saved.set(`seat.${joined.code}`, { token: joined.token, seat: joined.seat });
      enterRoom(joined.code);
    } catch (e) {
      toast(e.message);
    }
  },
  watchRoom(code) {
    enterRoom(code, true);
  },
  async copy(text) {
    try {
      await navigator.clipboard.writeText(text);
      update({ copied: true });
    } catch {
      toast(_("Copy the link from the box."));
    }
  },
  start() {
    send({ type: "start" });
  },
  rematch() {
    send({ type: "rematch" });
  },
  leave(ask = false) {
    if (ask && !window.confirm(_("Leave the match? A bot takes your seat and you cannot come back to it."))) return;
    send({ type: "leave" });
    saved.remove(`totals.${state.route.code}`);
    saved.remove(`seat.${state.route.code}`);
    actions.goHome();
  },
  kick(seat) {
    send({ type: "kick", seat });
  },
  sendChat() {
    const text = state.chatText.trim();
    if (!text) return;
    if (state.route.page === "home" && hello && hello.name !== playerName()) {
      hello = { type: "hello", name: playerName() };
      send({ ...hello, version: VERSION, lang: state.lang });
    }
    if (send({ type: "chat", text })) update({ chatText: "" });
  },
  act(text) {
    if (!state.view) return;
    if (!send({ type: "action", id: newId(), state: state.view.state, action: text })) {
      toast(_("Not connected; reconnecting…"));
      return;
    }
    update({ selected: null, panel: state.panel === "close" || state.panel === "history" ? null : state.panel });
  },
  select(i) {
    update({ selected: state.selected === i ? null : i });
  },
  moveCard(from, to) {
    if (Number.isNaN(from) || from === to) return;
    const order = state.order.slice();
    const [c] = order.splice(from, 1);
    order.splice(to, 0, c);
    update({ order, sortBy: "custom", selected: null });
  },
  sortHand(by) {
    saved.set("sortBy", by);
    const g = state.view && state.view.game;
    update({ sortBy: by, selected: null, order: g ? sorted(g.hand, by, g.arrangement) : state.order });
  },
  togglePanel(panel) {
    update({ panel: state.panel === panel ? null : panel, unread: panel === "chat" ? 0 : state.unread });
  },
  dismissResult() {
    update({ panel: null });
  },
};

Object.assign(actions, pageActions({
  state,
  update,
  toast,
  go(hash) {
    history.pushState(null, "", hash);
    route();
  },
}));

// -- dragging a card of the hand (mouse, pen or finger): onto another card to reorder, onto the pile to discard -------

let press = null;
let swallowClick = false;

function targetAt(x, y) {
  const el = document.elementFromPoint(x, y);
  if (!el) return null;
  const cardEl = el.closest(".hand button.card");
  if (cardEl) return { index: Number(cardEl.dataset.index) };
  if (el.closest("[data-action=draw-discard]")) return { pile: true };
  return null;
}

function onPointerDown(e) {
  const cardEl = e.target.closest && e.target.closest(".hand button.card");
  if (!cardEl || e.button > 0) return;
  press = { from: Number(cardEl.dataset.index), x: e.clientX, y: e.clientY, dragging: false };
}

function onPointerMove(e) {
  if (!press) return;
  if (!press.dragging && Math.hypot(e.clientX - press.x, e.clientY - press.y) < 12) return;
  press.dragging = true;
  const over = targetAt(e.clientX, e.clientY);
  update({ drag: { from: press.from, over: over ? (over.pile ? "pile" : over.index) : null } });
  e.preventDefault();
}

function onPointerUp(e) {
  const p = press;
  press = null;
  if (!p || !p.dragging) return;
  swallowClick = true;
  setTimeout(() => { swallowClick = false; }, 0);
  update({ drag: null });
  const over = targetAt(e.clientX, e.clientY);
  if (!over) return;
  if (over.pile) {
    const g = state.view && state.view.game;
    const c = state.order[p.from];
    const moves = g ? legal(g) : null;
    if (moves && moves.discard.has(c)) actions.act(moves.discard.get(c));
  } else {
    actions.moveCard(p.from, over.index);
  }
}

function onClickCapture(e) {
  if (swallowClick) {
    e.stopPropagation();
    e.preventDefault();
    swallowClick = false;
  }
}

// -- keyboard: the terminal game's keys ---------------------------------------------------------

function onKey(e) {
  const target = e.target;
  if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const v = state.view;
  const g = v && v.game;
  if (!g || state.route.page !== "room") return;
  const moves = legal(g);
  const n = state.order.length;
  if (/^[0-9]$/.test(e.key)) {
    const i = (Number(e.key) + 9) % 10;
    if (i < n) actions.select(i);
  } else if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
    const step = (e.key === "ArrowRight") === (document.documentElement.dir !== "rtl") ? 1 : -1;
    if (e.shiftKey && state.selected !== null) {
      const to = Math.max(0, Math.min(n - 1, state.selected + step));
      actions.moveCard(state.selected, to);
      update({ selected: to });
    } else if (n) {
      update({ selected: state.selected === null ? 0 : (state.selected + step + n) % n });
    }
  } else if (e.key === "s" && moves.draw.includes("stock")) {
    actions.act("draw stock");
  } else if (e.key === "d" && moves.draw.includes("discard")) {
    actions.act("draw discard");
  } else if (e.key === "Enter" && state.selected !== null && !(target && target.tagName === "BUTTON")) {
    const c = state.order[state.selected];
    if (moves.discard.has(c)) actions.act(moves.discard.get(c));
  } else if (e.key === "c" && moves.close.size) {
    actions.togglePanel("close");
  } else if (e.key === "o") {
    actions.sortHand(state.sortBy === "suit" ? "rank" : state.sortBy === "rank" ? "melds" : "suit");
  } else if (e.key === "h") {
    actions.togglePanel("history");
  } else if (e.key === "Escape") {
    actions.togglePanel(null);
  } else {
    return;
  }
  e.preventDefault();
}

// -- start ----------------------------------------------------------------------------------------

async function main() {
  try {
    state.lang = await loadLanguage(state.lang);
  } catch {
    state.lang = "en";
  }
  state.account = await currentAccount(state.lang);
  document.addEventListener("keydown", onKey);
  document.addEventListener("pointerdown", onPointerDown);
  document.addEventListener("pointermove", onPointerMove, { passive: false });
  document.addEventListener("pointerup", onPointerUp);
  document.addEventListener("pointercancel", () => { press = null; update({ drag: null }); });
  document.addEventListener("click", onClickCapture, true);
  window.addEventListener("popstate", route);
  window.addEventListener("hashchange", route);
  setInterval(() => {
    if (state.view && (state.view.turn_deadline || state.view.seats.some((x) => x.presence === "away"))) update({});
  }, 1000);
  setInterval(() => {
    // A socket silent for 40 s (no pong to the pings) is dead though not closed: open a new one.
    if (socket && hello && socket.readyState === WebSocket.OPEN && Date.now() - lastHeard > 40000) open();
    else send({ type: "ping", t: Date.now() / 1000 });
  }, 15000);
  route();
  draw();
}

main();
