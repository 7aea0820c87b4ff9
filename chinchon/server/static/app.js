// The client's state, its connection to the server and the actions the controls call.
//
// What the server sends (protocol version 2: numbered events, folded into the view by state.js) is shown one moment
// at a time (a move, a deal's end): the others' moves no faster than the chosen pace, a deal's results in front until
// the player continues, each moment's cards moved by motion.js.

import { patch } from "./dom.js";
import { _, applyLanguage, browserLanguage, loadLanguage } from "./i18n.js";
import { render, legal, currentLevel, PACES } from "./render.js";
import { cardKey } from "./cards.js";
import { suggestedLayoff } from "./ui.js";
import * as sound from "./sound.js";
import { accountSeat, changeHeaders, currentAccount } from "./account.js";
import { pageActions, pageRoute } from "./pages.js";
import { VERSION, actionText, applyEvent, follows } from "./state.js";
import * as motion from "./motion.js";

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
  sound: saved.get("sound", false),
  pace: saved.get("pace", "normal") in PACES ? saved.get("pace", "normal") : "normal",
  tipsSeen: saved.get("tipsSeen", []),
  tipsOff: saved.get("tipsOff", false),
  // A room for friends: private unless its creator lists it.
  form: { preset: "fournier", seats: 2, bot_level: "strong", public: false, turn: "", limit: "", ...saved.get("form", {}) },
  // Play now: the opponents, their level and the rules, kept for next time.
  play: { opponents: 1, bot_level: "strong", preset: "fournier", turn: "", limit: "", ...saved.get("play", {}) },
  nameMissing: false,
  rulesPreset: "fournier",
  help: null,
  joinCode: "",
  lobby: [],
  lobbyChat: [],
  chat: [],
  log: [],
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
  // A deal's results in front of the table ({deal, result, scores, active, state}); `hold` keeps the next deal behind
  // them until the player continues.
  result: null,
  hold: false,
  resultShown: null,
  suggest: false,
  layoffAll: false,
  // The card this seat just drew (shown raised until it discards).
  freshCard: null,
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
// A form saved with an old level's name.
state.form.bot_level = currentLevel(state.form.bot_level);
state.play.bot_level = currentLevel(state.play.bot_level);

// -- drawing ---------------------------------------------------------------------------------

const root = document.getElementById("app");
let shown = null;
let pending = false;

function draw() {
  pending = false;
  applyLanguage();
  ensureHelp();
  shown = patch(root, render(state, actions), shown);
  motion.play(root);
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

// -- the rules in words ("How to play", the cards' values) --------------------------------------

const helpCache = new Map();
let helpKey = null;

/** The rules the page is about: the rules page's preset, or the room's. */
function helpWanted() {
  if (state.route.page === "rules") return { preset: state.rulesPreset, options: [] };
  if (state.route.page !== "room") return null;
  const v = state.view && state.view.room === state.route.code ? state.view : null;
  const info = v || state.roomInfo;
  return info ? { preset: info.preset || "fournier", options: info.options || [] } : null;
}

function ensureHelp() {
  const want = helpWanted();
  if (!want) return;
  const key = `${state.lang}|${want.preset}|${want.options.join("&")}`;
  if (key === helpKey) return;
  helpKey = key;
  if (helpCache.has(key)) {
    state.help = helpCache.get(key);
    return;
  }
  state.help = null;
  const query = new URLSearchParams({ preset: want.preset });
  for (const option of want.options) query.append("option", option);
  fetch(`/api/rules/${encodeURIComponent(state.lang)}?${query}`)
    .then((response) => response.json().then((data) => [response.ok, data]))
    .then(([ok, data]) => {
      const info = ok ? data : { error: (data.error && data.error.message) || "?" };
      if (ok) helpCache.set(key, info);
      if (helpKey === key) update({ help: info });
    })
    .catch(() => {
      if (helpKey === key) helpKey = null;
    });
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
  sent.clear();
  update({ conn: "connecting" });
  ws.onopen = () => {
    retries = 0;
    lastHeard = Date.now();
    update({ conn: "open" });
    const message = { ...hello, version: VERSION, lang: state.lang };
    // With the state kept, the server sends the events missed (or the whole view when it keeps them no more).
    if (message.room && lastEvent !== null && received && received.room === message.room) message.last_event = lastEvent;
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
  forgetHappenings();
  open();
}

function disconnect() {
  hello = null;
  forgetHappenings();
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

// -- what happened, shown one thing at a time ----------------------------------------------------

// The events of an action that the table shows as a moment of their own: a move, a deal's end (its hands shown).
const MOMENTS = new Set(["drew", "discarded", "closed", "showed", "laid_off", "passed", "reentered", "deal_ended"]);

let queue = [];           // {events, view}: moments waiting to be shown, oldest first
let gathering = [];       // event messages received since the last moment
let received = null;      // the view with every event received folded in (shown or not)
let pumpTimer = null;
let shownAt = 0;          // when the last move was shown
let timedOut = null;      // the turn a bot last played for this seat, when the timer ran out
const sent = new Set();   // ids of this seat's actions not yet answered

function forgetHappenings() {
  clearTimeout(pumpTimer);
  pumpTimer = null;
  queue = [];
  gathering = [];
  received = null;
  state.hold = false;
}

/** A numbered event: folded into the view received, and shown as a moment when it is one (or settles an action). */
function receiveEvent(m) {
  if (!follows(received, m)) {
    resync();
    return;
  }
  const e = m.event;
  const before = received;
  const g = before.game;
  received = applyEvent(received, m);
  lastEvent = m.n;
  // This seat's move that this page did not send, on its turn with a timer run out: the seat's bot played it.
  const acted = MOMENTS.has(e.kind) && e.kind !== "deal_ended";
  if (acted && before.seat !== null && e.seat === before.seat && sent.size === 0 && g && g.to_move === e.seat
    && before.turn_deadline && Date.now() / 1000 + state.clockSkew >= before.turn_deadline - 2) {
    const turn = `${before.match}:${g.deal_number}:${g.turn}`;
    if (timedOut !== turn) {
      timedOut = turn;
      m = { ...m, timeout: true };
    }
  }
  gathering.push(m);
  // (A game not dealt yet, between a match's start and its first deal, is no moment to show.)
  const dealt = !received.game || received.game.phase !== undefined;
  if (dealt && (m.settled || MOMENTS.has(e.kind))) {
    queue.push({ events: gathering, view: received });
    gathering = [];
    pump();
  }
}

/** The whole view (on joining, or after a gap): shown at once, whatever waited. */
function receiveView(view) {
  clearTimeout(pumpTimer);
  pumpTimer = null;
  queue = [];
  gathering = [];
  received = view;
  lastEvent = view.state;
  state.hold = false;
  state.freshCard = null;
  setView(view);
}

/** The key of the deal whose results a view shows as the last deal's. */
function previousKey(view) {
  return `${view.match}:${view.game.deal_number - 1}`;
}

function resultOf(view, result, deal) {
  const g = view.game;
  return { deal, result, scores: g.scores, active: g.active, state: view.state };
}

/** Whether a moment deals the next deal after the results of the last one were shown on the table: those results
 * come first, in front, until the player continues. */
function opensResult(item) {
  const old = state.view;
  const dealt = item.events.some((m) => m.event.kind === "deal_started");
  return dealt && !item.opened && old && old.game && old.game.result && old.status === "playing" && !old.game.match_over
    && item.view.match === old.match;
}

function isBot(view, seat) {
  const info = view.seats[seat];
  return Boolean(info) && info.presence === "bot";
}

function pump() {
  clearTimeout(pumpTimer);
  pumpTimer = null;
  while (queue.length && !state.hold) {
    const next = queue[0];
    if (opensResult(next)) {
      next.opened = true;
      const v = state.view;
      const key = `${v.match}:${v.game.deal_number}`;
      if (state.resultShown !== key) {
        // A player's next deal waits behind them; a spectator's table goes on (nobody there needs to continue).
        update({ result: resultOf(v, v.game.result, v.game.deal_number), panel: "result", hold: v.seat !== null,
          resultShown: key, layoffAll: false });
      }
      continue;
    }
    // A bot's move waits its turn at the chosen pace; a person's comes as it comes (people keep their own pace).
    const view = state.view || next.view;
    const bots = next.events.some((m) => MOMENTS.has(m.event.kind) && m.event.seat !== undefined
      && m.event.seat !== view.seat && isBot(view, m.event.seat));
    const wait = bots && state.view ? shownAt + PACES[state.pace] - Date.now() : 0;
    if (wait > 0) {
      pumpTimer = setTimeout(pump, wait);
      return;
    }
    queue.shift();
    show(next);
  }
}

/** The log's entry for an event of an action (the table before it names a lay-off's meld as it was). */
function logEntry(m, before) {
  const e = m.event;
  const entry = { n: m.n, seat: e.seat, action: actionText(e) };
  if (e.kind === "drew" && e.source === "discard") entry.card = e.card;
  if (e.kind === "laid_off" && before && before.game && before.game.table[e.meld_index]) {
    entry.meld = before.game.table[e.meld_index].cards;
  }
  return entry;
}

function show(item) {
  const old = state.view;
  let log = state.log;
  let fresh = state.freshCard;
  for (const m of item.events) {
    const e = m.event;
    if (e.kind === "start" || e.kind === "rematch") {
      log = [];
      state.logMatch = undefined;
      continue;
    }
    if (m.timeout) {
      log = log.concat([{ n: m.n, note: "timeout" }]);
      toast(_("Time's up: a bot played your turn."));
    }
    if (e.kind === "stock_rebuilt") log = log.concat([{ n: m.n, note: "reshuffle" }]);
    if (actionText(e) !== null) {
      log = log.concat([logEntry(m, old)]);
      shownAt = Date.now();
      if (e.kind === "closed" && state.sound) sound.play("close");
    }
    if (e.kind === "drew" && old && e.seat === old.seat) {
      fresh = e.source === "discard" ? e.card : (m.private.find((p) => p.kind === "you_drew") || {}).card;
    }
  }
  if (log !== state.log) state.log = log.slice(-40);
  state.freshCard = fresh;
  // Seats change by presence only: the latest presence is the truth, whatever the moment shown.
  let view = item.view;
  if (old && old.room === view.room && old.seats !== view.seats) view = { ...view, seats: old.seats, watchers: old.watchers };
  motion.note(item.events, old, { deck: view.rules.deck, fourColour: state.fourColour });
  setView(view);
  const g = view.game;
  if (g && state.sound) {
    const isMine = (v) => v && v.game && v.seat !== null && v.game.to_move === v.seat && !v.game.match_over && v.status === "playing";
    const ended = (v) => v && v.game && (v.game.match_over || v.status === "over");
    if (isMine(view) && !isMine(old)) sound.play("turn");
    if (ended(view) && !ended(old) && old && old.game) sound.play("end");
  }
  if (state.layoffAll) setTimeout(continueLayoffs, 0);
}

/** The totals after each deal, for the chart (a rematch starts them again); whether the view brings a deal's results
 * this page has not seen. */
function noteTotals(view, changes) {
  const g = view.game;
  const old = state.view && state.view.game;
  const rematched = (Boolean(old) && state.view.match !== view.match)
    || (!old && state.totalsMatch !== null && state.totalsMatch !== view.match);
  const seen = rematched ? null : state.resultSeen;
  let totals = rematched ? [] : state.dealTotals;
  const fresh = Boolean(g.previous_result) && seen !== null && g.deal_number > seen && !g.match_over;
  if (seen === null || g.deal_number > seen) {
    totals = totals.length ? totals.slice() : [g.scores.map(() => 0)];
    if (seen === null && g.deal_number > 1) totals = [];
    if (g.deal_number > 1) totals.push([...g.scores]);
    changes.resultSeen = g.deal_number;
  }
  const last = totals.length ? totals[totals.length - 1].join() : null;
  if (g.match_over && last !== g.scores.join()) totals = totals.concat([[...g.scores]]);
  changes.dealTotals = totals;
  changes.totalsMatch = view.match;
  // Kept for the room, so that a reload or a return draws the same chart (written when it changes, not every view).
  if (totals !== state.dealTotals || "resultSeen" in changes) {
    saved.set(`totals.${view.room}`, { match: view.match, seen: changes.resultSeen ?? seen, totals });
  }
  Object.assign(state, { dealTotals: changes.dealTotals, resultSeen: changes.resultSeen ?? state.resultSeen, totalsMatch: view.match });
  return fresh;
}

function setView(view) {
  if (state.view && state.view.room === view.room && state.view.seat !== null && view.seat === null) {
    saved.remove(`seat.${view.room}`); // removed from the seat: the token holds nothing now
  }
  const changes = { view, roomMissing: false, presenceAt: Date.now(), logMatch: view.match };
  // A view of another match clears the moves of the last one, even when its rematch event never came (a resync
  // sends only the view once the server no longer keeps the events missed).
  if (state.logMatch !== undefined && state.logMatch !== view.match) changes.log = [];
  const g = view.game;
  if (g && g.phase !== undefined) {
    const old = state.view && state.view.game;
    const newDeal = !old || old.deal_number !== g.deal_number || state.view.match !== view.match;
    let order = state.sortBy === "custom" && !newDeal ? reconcile(state.order, g.hand) : sorted(g.hand, state.sortBy, g.arrangement);
    if (state.sortBy === "custom" && newDeal) order = sorted(g.hand, "suit", g.arrangement);
    changes.order = order;
    const keep = state.selected !== null && order[state.selected] === state.order[state.selected] && g.phase === "discard";
    changes.selected = keep ? state.selected : null;
    if (newDeal) changes.suggest = false;
    // Results this page never showed (a deal ended while it was away): in front, over the new deal.
    if (noteTotals(view, changes) && state.resultShown !== previousKey(view)) {
      Object.assign(changes, { result: resultOf(view, g.previous_result, g.deal_number - 1), panel: "result", resultShown: previousKey(view) });
    }
    // A re-entry question and the end of the match show the deal's results themselves.
    if (g.result && (g.match_over || legal(g).reenter.length)) changes.resultShown = `${view.match}:${g.deal_number}`;
    if (state.panel === "close" && !legal(g).close.size) changes.panel = null;
  }
  update(changes);
  if (state.autoStart === view.room && view.status === "waiting" && view.seat !== null && view.seats[view.seat].creator) {
    state.autoStart = null;
    send({ type: "start" });
  }
}

function continueLayoffs() {
  const v = state.view;
  const g = v && v.game;
  if (!state.layoffAll || queue.length || sent.size) return;
  const moves = g && g.phase === "showdown" && g.to_move === v.seat ? legal(g) : null;
  if (!moves || !moves.layoff.length) {
    state.layoffAll = false;
    return;
  }
  actions.act(suggestedLayoff(moves.layoff, state.help && state.help.values).text);
}

function receive(m) {
  switch (m.type) {
    case "welcome":
      update({ role: m.role });
      break;
    case "view":
      receiveView(m);
      break;
    case "event":
      receiveEvent(m);
      break;
    case "ack":
      sent.delete(m.id);
      // The answer comes after the new view: the next lay-off of "lay off all" waits for both.
      if (state.layoffAll) setTimeout(continueLayoffs, 0);
      break;
    case "presence":
      if (received && received.room === m.room) received = { ...received, seats: m.seats, watchers: m.watchers };
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
      if (m.id) sent.delete(m.id);
      state.layoffAll = false;
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
  if (/^#\/rules/.test(location.hash)) {
    enterRules();
    return;
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

function enterRules() {
  const wasRoom = state.route.page === "room";
  update({ route: { page: "rules" }, panel: null, view: wasRoom ? null : state.view });
  if (wasRoom || !hello) {
    const message = { type: "hello" };
    if (playerName()) message.name = playerName();
    connect(message);
  }
}

function enterRoom(code, watch = false) {
  const fresh = state.route.page !== "room" || state.route.code !== code;
  update({ route: { page: "room", code }, needJoin: false, roomMissing: false, copied: false,
    ...(fresh ? { view: null, chat: [], log: [], logMatch: undefined, unread: 0, panel: null, dealTotals: [], resultSeen: null, totalsMatch: null,
      result: null, resultShown: null, suggest: false, layoffAll: false } : {}) });
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

/** The name the player goes by (the account's, or the one typed), or null after saying, next to the field, that it
 * is missing. */
function givenName() {
  const name = playerName();
  if (name) return name;
  update({ nameMissing: true });
  requestAnimationFrame(() => {
    const input = document.querySelector("input[name=name]");
    if (input) input.focus();
  });
  return null;
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
    update({ name, nameMissing: false });
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
  toggleSound() {
    const on = !state.sound && sound.unlock();
    saved.set("sound", on);
    update({ sound: on });
    if (on) sound.play("turn");
  },
  setPace(pace) {
    if (!(pace in PACES)) return;
    saved.set("pace", pace);
    update({ pace });
    pump();
  },
  setTips(on) {
    saved.set("tipsOff", !on);
    if (on) saved.set("tipsSeen", []);
    update({ tipsOff: !on, tipsSeen: on ? [] : state.tipsSeen });
  },
  seeTip(key) {
    const seen = state.tipsSeen.includes(key) ? state.tipsSeen : state.tipsSeen.concat([key]);
    saved.set("tipsSeen", seen);
    update({ tipsSeen: seen });
  },
  stopTips() {
    actions.setTips(false);
  },
  /** Change the room form: ``changes``, or a function of the form as it is now (not as a render saw it). */
  setForm(changes) {
    const form = { ...state.form, ...(typeof changes === "function" ? changes(state.form) : changes) };
    saved.set("form", form);
    update({ form });
  },
  setPlay(changes) {
    const play = { ...state.play, ...changes };
    saved.set("play", play);
    update({ play });
  },
  setRulesPreset(rulesPreset) {
    update({ rulesPreset });
  },
  setJoinCode(joinCode) {
    update({ joinCode });
  },
  setChatText(chatText) {
    update({ chatText });
  },
  async createRoom(startNow) {
    const name = givenName();
    if (!name) return;
    const f = startNow ? state.play : state.form;
    const options = {};
    if (f.limit) options.limit = Number(f.limit);
    if (f.options) Object.assign(options, f.options);
    const seats = startNow ? Number(f.opponents) + 1 : Number(f.seats);
    const body = { name, rules: { preset: f.preset, options }, seats, bot_level: f.bot_level,
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
    const name = givenName();
    if (!name) return;
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
    const id = newId();
    if (!send({ type: "action", id, state: state.view.state, action: text })) {
      state.layoffAll = false;
      toast(_("Not connected; reconnecting…"));
      return;
    }
    sent.add(id);
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
    if (state.panel === "result" && panel !== "result") {
      actions.dismissResult();
      if (!panel) return;
    }
    const next = state.panel === panel ? null : panel;
    const changes = { panel: next, unread: panel === "chat" ? 0 : state.unread };
    if (next === "result") {
      const v = state.view;
      if (!v || !v.game || !v.game.previous_result) return;
      changes.result = resultOf(v, v.game.previous_result, v.game.deal_number - 1);
    }
    update(changes);
  },
  closePanel() {
    actions.togglePanel(null);
  },
  dismissResult() {
    update({ panel: null, hold: false });
    pump();
  },
  toggleSuggest() {
    update({ suggest: !state.suggest });
  },
  layoffAll() {
    state.layoffAll = true;
    continueLayoffs();
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
  // Escape closes the open panel, from any control in it.
  if (e.key === "Escape" && state.panel) {
    actions.closePanel();
    e.preventDefault();
    return;
  }
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
    // The hand is drawn left to right in every language.
    const step = e.key === "ArrowRight" ? 1 : -1;
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
  } else if (e.key === "?") {
    actions.togglePanel("keys");
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
