// The screens: pure functions of the state (the seat's view from the server plus local choices).

import { h } from "./dom.js";
import { _, pgettext, cardName, LANGUAGES } from "./i18n.js";
import { cardSvg, parseCard } from "./cards.js";
import { PAGES, renderPage } from "./pages.js";

export const PRESETS = ["fournier", "clasico", "online", "polaco"];
/** The bot levels, weakest first (chinchon.bots.levels.LADDER), and the old levels' names with the level each became. */
export const LEVELS = ["beginner", "casual", "regular", "skilled", "strong"];
const RETIRED_LEVELS = { easy: "beginner", medium: "strong", hard: "strong", expert: "strong" };

/** A level chosen before (a saved form may hold an old name) as one of LEVELS. */
export function currentLevel(level) {
  return LEVELS.includes(level) ? level : RETIRED_LEVELS[level] || "strong";
}
/** The presets' max_players (chinchon.rules): the seats a room of each may have. */
export const MAX_SEATS = { fournier: 4, clasico: 6, online: 4, polaco: 8 };
const MELD_COLOURS = ["m0", "m1", "m2", "m3"];
const EYE = `<svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true"><path d="M1 12s4-7 11-7 11 7 11 7-4 7-11 7S1 12 1 12z" fill="none" stroke="currentColor" stroke-width="2"/><circle cx="12" cy="12" r="3.2" fill="currentColor"/></svg>`;
const PALETTE = `<svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true"><circle cx="7" cy="7" r="4" fill="#c58b00"/><circle cx="17" cy="7" r="4" fill="#d32f2f"/><circle cx="7" cy="17" r="4" fill="#1565c0"/><circle cx="17" cy="17" r="4" fill="#2e7d32"/></svg>`;
const LOGO = `<svg viewBox="0 0 16 20" width="16" height="20" aria-hidden="true"><rect x="1" y="1" width="14" height="18" rx="2.5" fill="#9b2226" stroke="#e9c46a"/><circle cx="8" cy="10" r="3.4" fill="#e9c46a"/></svg>`;
const CLOCK = `<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><circle cx="12" cy="13" r="9" fill="none" stroke="currentColor" stroke-width="2.2"/><path d="M12 8v5l3 2M9 2h6" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/></svg>`;
const BACK_ICON = `<svg viewBox="0 0 12 16" width="11" height="15" aria-hidden="true"><rect x="0.5" y="0.5" width="11" height="15" rx="2" fill="#9b2226" stroke="#fff"/><circle cx="6" cy="8" r="2" fill="#e9c46a"/></svg>`;

function levelName(level) {
  const names = {
    beginner: pgettext("bot level", "beginner"), casual: pgettext("bot level", "casual"),
    regular: pgettext("bot level", "regular"), skilled: pgettext("bot level", "skilled"),
    strong: pgettext("bot level", "strong"),
  };
  return names[level] || level || "";
}

/** How a level plays, in a line (the same messages as chinchon.bots.levels). */
function levelDescription(level) {
  const lines = {
    beginner: _("Keeps its high cards, overlooks the discard pile one turn in three, closes late, misses most lay-offs and forgets what was thrown."),
    casual: _("Keeps its high cards half the time, overlooks the discard pile one turn in three, closes late and misses half the lay-offs."),
    regular: _("Throws its high cards, but overlooks the discard pile one turn in three, closes late and misses half the lay-offs."),
    skilled: _("Sees every card on the table but does not think a draw ahead; closes late, with 3 points or fewer."),
    strong: _("Weighs each discard against the next draw, watches what you collect and picks its moment to close."),
  };
  return lines[level] || "";
}

export function presetName(preset) {
  const names = { fournier: "Fournier", clasico: _("Classic"), online: _("Online"), polaco: _("Polish (with stakes)") };
  return names[preset] || preset || _("custom rules");
}

// -- small pieces ------------------------------------------------------------------------

/** One card: a face (text) or the back (null), as a button when onclick is given. */
export function card(s, text, opts = {}) {
  const deck = s.view ? s.view.rules.deck : "spanish40";
  const name = text === null ? _("face-down card") : cardName(text, deck);
  const cls = ["card", opts.size || "", opts.selected ? "selected" : "", opts.meld !== undefined ? `meld ${MELD_COLOURS[opts.meld % 4]}` : "",
    opts.fresh ? "fresh" : "", opts.cls || ""].join(" ").replace(/\s+/g, " ").trim();
  const props = {
    class: cls,
    html: cardSvg(text, { fourColour: s.fourColour, deck }),
    "aria-label": opts.label || name,
    title: opts.label || name,
    "data-card": text === null ? "back" : text,
    key: opts.key,
  };
  if (opts.onclick) {
    return h("button", { ...props, type: "button", onclick: opts.onclick, "aria-pressed": opts.selected ? "true" : null,
      "data-index": opts.index });
  }
  return h("span", { ...props, role: "img" });
}

function cards(s, list, size = "small") {
  return h("span", { class: "cards" }, list.map((c) => card(s, c, { size })));
}

function meldCards(s, meldText) {
  return h("span", { class: "meld-group" }, cards(s, meldText, "small"));
}

function parseMelds(text) {
  const out = [];
  const re = /\[([^\]]*)\]/g;
  let m;
  while ((m = re.exec(text)) !== null) out.push(m[1].trim().split(/\s+/).filter(Boolean));
  return out;
}

function seatName(s, seat) {
  if (seat === null || seat === undefined || !s.view) return "";
  const info = s.view.seats[seat];
  if (!info) return "?";
  if (info.name) return info.name;
  return info.kind === "bot" ? _("Bot {n}", { n: seat + 1 }) : _("Seat {n}", { n: seat + 1 });
}

function presenceBadge(info, since) {
  if (info.presence === "connected") return h("span", { class: "badge ok" }, _("online"));
  if (info.presence === "away") {
    const left = info.away_seconds !== null && info.away_seconds !== undefined
      ? Math.max(0, Math.ceil(info.away_seconds - (since ? (Date.now() - since) / 1000 : 0))) : null;
    return h("span", { class: "badge warn" }, left !== null ? _("away ({seconds} s)", { seconds: left }) : _("away"));
  }
  if (info.presence === "bot") {
    return h("span", { class: "badge bot" }, info.kind === "bot" ? _("bot {level}", { level: levelName(info.level) }) : _("bot playing"));
  }
  return h("span", { class: "badge" }, _("open seat"));
}

function button(label, onclick, opts = {}) {
  return h("button", { type: "button", class: opts.cls || "", onclick, disabled: opts.disabled, "data-action": opts.action, title: opts.title }, label);
}

// -- the top bar ------------------------------------------------------------------------

function topBar(s, a) {
  const v = s.view;
  const conn = { open: _("connected"), connecting: _("connecting…"), closed: _("reconnecting…") }[s.conn] || "";
  return h("header", { class: "top" },
    h("a", { class: "brand", href: "/", "aria-label": _("Home"), onclick: (e) => { e.preventDefault(); a.goHome(); } },
      h("span", { class: "icon", html: LOGO }), h("span", { class: "brand-text" }, "Chinchón")),
    s.route.page === "room" && v ? h("span", { class: "room-code", title: _("Room code") }, v.room) : null,
    v && s.route.page === "room" ? h("span", { class: "watchers", title: _("Watchers"), "aria-label": _("Watchers: {n}", { n: v.watchers }) },
      h("span", { class: "icon", html: EYE }), String(v.watchers)) : null,
    h("span", { class: `conn ${s.conn}`, role: "status", "aria-label": conn, title: conn }),
    h("span", { class: "grow" }),
    h("label", { class: "inline" },
      h("span", { class: "sr" }, _("Language")),
      h("select", { "aria-label": _("Language"), onchange: (e) => a.setLanguage(e.target.value), value: s.lang },
        LANGUAGES.map(([code, label]) => h("option", { value: code, selected: code === s.lang }, label)))),
    h("button", { type: "button", class: `toggle ${s.fourColour ? "on" : ""}`, "aria-pressed": s.fourColour ? "true" : "false",
      title: _("Four-colour cards"), "aria-label": _("Four-colour cards"), onclick: () => a.toggleFourColour(), html: PALETTE }),
  );
}

// -- home ---------------------------------------------------------------------------------

function field(label, control) {
  return h("label", { class: "field" }, h("span", null, label), control);
}

function select(value, options, onchange, name) {
  return h("select", { value: String(value), onchange: (e) => onchange(e.target.value), name },
    options.map(([v, label]) => h("option", { value: String(v), selected: String(v) === String(value) }, label)));
}

function home(s, a) {
  const f = s.form;
  const maxSeats = MAX_SEATS[f.preset] || 4;
  const seatOptions = [];
  for (let n = 2; n <= maxSeats; n++) seatOptions.push([n, String(n)]);
  return h("main", { class: "home" },
    h("section", { class: "panel hero" },
      h("h1", null, _("Chinchón, the Spanish rummy")),
      s.account ? h("p", { class: "playing-as" }, _("You play as {name}.", { name: s.account.name }))
        : field(_("Your name"), h("input", { name: "name", value: s.name, maxlength: "24", autocomplete: "nickname",
          placeholder: _("Your name"), oninput: (e) => a.setName(e.target.value) })),
      h("p", { class: "row links" },
        h("a", { href: "#/account", "data-link": "account" }, s.account ? _("Your account") : _("Log in or create an account")),
        h("a", { href: "#/leaderboard", "data-link": "leaderboard" }, _("Leaderboards"))),
      button(_("Play now against bots"), () => a.createRoom(true), { cls: "primary big", action: "play-now" })),
    h("section", { class: "panel" },
      h("h2", null, _("Create a room")),
      h("div", { class: "grid" },
        field(_("Rules"), select(f.preset, PRESETS.map((p) => [p, presetName(p)]),
          (v) => a.setForm({ preset: v, seats: Math.min(f.seats, MAX_SEATS[v] || 4) }), "preset")),
        field(_("Seats"), select(f.seats, seatOptions, (v) => a.setForm({ seats: Number(v) }), "seats")),
        // The whole row: the level's line below its select would stretch the field beside it.
        h("label", { class: "field", style: "grid-column: 1 / -1" }, h("span", null, _("Bot level")),
          select(f.bot_level, LEVELS.map((l) => [l, levelName(l)]), (v) => a.setForm({ bot_level: v }), "bot_level"),
          h("small", { class: "muted", "data-level-description": f.bot_level }, levelDescription(f.bot_level))),
        field(_("Points limit"), select(f.limit, [["", _("as the rules say")], ["50", "50"], ["100", "100"], ["150", "150"]],
          (v) => a.setForm({ limit: v }), "limit")),
        field(_("Turn timer"), select(f.turn, [["", _("none")], ["30", _("{n} s", { n: 30 })], ["60", _("{n} s", { n: 60 })],
          ["120", _("{n} s", { n: 120 })]], (v) => a.setForm({ turn: v }), "turn")),
        h("label", { class: "field check" },
          h("input", { type: "checkbox", name: "public", checked: f.public, onchange: (e) => a.setForm({ public: e.target.checked }) }),
          h("span", null, _("Public (listed in the lobby)"))),
        h("label", { class: "field check" },
          h("input", { type: "checkbox", name: "rated", checked: Boolean(f.rated && s.account), disabled: !s.account,
            onchange: (e) => a.setForm({ rated: e.target.checked }) }),
          h("span", null, s.account ? _("Rated (logged-in players only, no bots)") : _("Rated (log in first)")))),
      button(_("Create the room"), () => a.createRoom(false), { cls: "primary", action: "create" })),
    h("section", { class: "panel" },
      h("h2", null, _("Join a room")),
      h("form", { class: "row", onsubmit: (e) => { e.preventDefault(); a.joinByCode(); } },
        h("input", { name: "code", value: s.joinCode, placeholder: _("Room code or invite link"), "aria-label": _("Room code or invite link"),
          oninput: (e) => a.setJoinCode(e.target.value), autocapitalize: "characters" }),
        h("button", { type: "submit", class: "primary" }, _("Join")))),
    h("section", { class: "panel" },
      h("h2", null, _("Public rooms")),
      s.lobby.length === 0 ? h("p", { class: "muted" }, _("No public rooms right now.")) :
        h("ul", { class: "lobby" }, s.lobby.map((r) => h("li", { key: r.code },
          h("span", { class: "code" }, r.code),
          h("span", null, presetName(r.preset)),
          r.rated ? h("span", { class: "badge ok" }, _("rated")) : null,
          h("span", null, _("{taken}/{seats} seats", { taken: r.taken, seats: r.seats })),
          h("span", { class: "muted names" }, r.names.join(", ")),
          r.status === "waiting" && r.taken < r.seats ? button(_("Join"), () => a.openRoom(r.code), { cls: "primary small" })
            : button(_("Watch"), () => a.openRoom(r.code, true), { cls: "small" }))))),
    h("section", { class: "panel" },
      h("h2", null, _("Lobby chat")),
      chatBox(s, a, s.lobbyChat, !s.name.trim() && !s.account ? _("Give your name to chat") : null)),
  );
}

function chatBox(s, a, lines, disabledReason) {
  return h("div", { class: "chat" },
    h("ol", { class: "lines", "aria-live": "polite" }, lines.slice(-50).map((l, i) => h("li", { key: String(i) },
      h("b", null, l.name, ": "), h("span", { dir: "auto" }, l.text)))),
    h("form", { class: "row", onsubmit: (e) => { e.preventDefault(); a.sendChat(); } },
      h("input", { name: "chat", value: s.chatText, maxlength: "300", placeholder: disabledReason || _("Say something"),
        "aria-label": _("Chat message"), disabled: Boolean(disabledReason), oninput: (e) => a.setChatText(e.target.value) }),
      h("button", { type: "submit", disabled: Boolean(disabledReason) }, _("Send"))));
}

// -- joining a room by its link ------------------------------------------------------------

function joinForm(s, a) {
  const info = s.roomInfo;
  return h("main", { class: "home" }, h("section", { class: "panel" },
    h("h1", null, _("Room {code}", { code: s.route.code })),
    // The line is there before the room's details come, so that they replace and move nothing (a tap, a caret).
    h("p", null, info ? [presetName(info.preset), " · ", _("{taken}/{seats} seats", { taken: info.taken, seats: info.seats }),
      info.names.length ? " · " + info.names.join(", ") : ""] : "\u00a0"),
    s.account ? h("p", { class: "playing-as" }, _("You play as {name}.", { name: s.account.name }))
      : field(_("Your name"), h("input", { name: "name", value: s.name, maxlength: "24", oninput: (e) => a.setName(e.target.value) })),
    h("div", { class: "row" },
      !info || (info.status === "waiting" && info.taken < info.seats)
        ? button(_("Take a seat"), () => a.joinRoom(s.route.code), { cls: "primary", action: "take-seat" }) : null,
      button(_("Watch"), () => a.watchRoom(s.route.code), { action: "watch" }),
      button(_("Back"), () => a.goHome()))));
}

// -- the waiting room ---------------------------------------------------------------------

function waiting(s, a) {
  const v = s.view;
  const mine = v.seat;
  const creator = mine !== null && v.seats[mine] && v.seats[mine].creator;
  const link = `${location.origin}/#/room/${v.room}`;
  return h("main", { class: "home" },
    h("section", { class: "panel" },
      h("h1", null, _("Room {code}", { code: v.room })),
      h("p", { class: "muted" }, presetName(v.preset), " · ", _("limit {limit}", { limit: v.rules.limit }),
        v.turn_seconds ? " · " + _("{n} s a turn", { n: v.turn_seconds }) : "", v.rated ? " · " + _("rated") : ""),
      h("div", { class: "invite" },
        h("input", { readonly: true, value: link, "aria-label": _("Invite link"), name: "invite", onfocus: (e) => e.target.select() }),
        button(s.copied ? _("Copied") : _("Copy the link"), () => a.copy(link), { cls: "primary", action: "copy" })),
      h("ol", { class: "seats" }, v.seats.map((info) => h("li", { key: String(info.seat), class: info.seat === mine ? "me" : "" },
        h("span", { class: "name" }, info.name || _("open seat"), info.seat === mine ? " " + _("(you)") : ""),
        info.creator ? h("span", { class: "badge" }, _("host")) : null,
        info.kind !== "open" ? presenceBadge(info, s.presenceAt) : h("span", { class: "badge" }, _("a bot if nobody comes")),
        creator && info.seat !== mine && info.kind === "person"
          ? button(_("Remove"), () => a.kick(info.seat), { cls: "small danger", action: `kick-${info.seat}` }) : null))),
      h("div", { class: "row" },
        creator ? button(_("Start the match"), () => a.start(), { cls: "primary big", action: "start" })
          : mine !== null ? h("p", { class: "muted" }, _("Waiting for the host to start…")) : null,
        mine !== null ? button(_("Leave"), () => a.leave(), { cls: "danger" }) : null)),
    h("section", { class: "panel" }, h("h2", null, _("Chat")),
      chatBox(s, a, s.chat, mine === null ? _("Only players chat in a room") : null)));
}

// -- the table ------------------------------------------------------------------------------

function legal(g) {
  const out = { draw: [], discard: new Map(), close: new Map(), show: [], layoff: [], pass: false, reenter: [] };
  for (const text of g.legal_actions) {
    const [verb, ...rest] = text.split(" ");
    if (verb === "draw") out.draw.push(rest[0]);
    else if (verb === "discard") out.discard.set(rest[0], text);
    else if (verb === "close") {
      const list = out.close.get(rest[0]) || [];
      list.push(text);
      out.close.set(rest[0], list);
    } else if (verb === "show") out.show.push(text);
    else if (verb === "layoff") out.layoff.push({ text, card: rest[0], meld: Number(rest[1]) });
    else if (verb === "pass") out.pass = true;
    else if (verb === "reenter") out.reenter.push(text);
  }
  return out;
}

function opponent(s, a, g, info) {
  const seat = info.seat;
  const out = !g.active.includes(seat);
  const classes = ["opponent", g.to_move === seat ? "to-move" : "", out ? "out" : ""].join(" ");
  const count = g.hand_sizes[seat] || 0;
  return h("div", { class: classes, key: String(seat), "data-seat": String(seat) },
    h("div", { class: "who" },
      h("span", { class: "name" }, seatName(s, seat)),
      g.dealer === seat ? h("span", { class: "badge", title: _("dealer") }, "D") : null),
    h("div", { class: "meta" }, presenceBadge(info, s.presenceAt)),
    h("div", { class: "meta" },
      h("span", { class: "count", "aria-label": _("{n} cards", { n: count }) }, h("span", { class: "icon", html: BACK_ICON }), String(count)),
      h("span", { class: "total", title: _("total points") }, _("{points} pts", { points: g.scores[seat] })),
      out ? h("span", { class: "badge warn" }, _("out")) : null),
    g.taken[seat] && g.taken[seat].length ? h("div", { class: "taken", title: _("cards known in this hand") },
      h("span", { class: "sr" }, _("Known cards:")), cards(s, g.taken[seat], "tiny")) : null);
}

function statusLine(s, g, moves) {
  const mine = s.view.seat;
  if (g.phase === "over" || g.match_over) return "";
  if (moves.reenter.length) return _("You are out. Re-enter the match?");
  if (g.to_move === null) return "";
  if (g.to_move !== mine) {
    if (g.phase === "showdown") return _("Showdown: {name} plays.", { name: seatName(s, g.to_move) });
    return _("{name} plays.", { name: seatName(s, g.to_move) });
  }
  if (g.phase === "draw") return _("Your turn: draw from the stock or the discard pile.");
  if (g.phase === "discard") return moves.close.size ? _("Discard a card, or close.") : _("Tap a card, then discard it.");
  if (g.phase === "showdown") return _("Showdown: show your melds, lay off your loose cards, or pass.");
  return "";
}

function piles(s, a, g, moves) {
  const canStock = moves.draw.includes("stock");
  const canDiscard = moves.draw.includes("discard");
  const top = g.discard_pile.length ? g.discard_pile[g.discard_pile.length - 1] : null;
  const selected = s.selected !== null ? s.order[s.selected] : null;
  const dragged = s.drag ? s.order[s.drag.from] : null;
  const dropCard = selected !== null && moves.discard.has(selected) ? selected : dragged !== null && moves.discard.has(dragged) ? dragged : null;
  const canDrop = dropCard !== null;
  const stock = h("div", { class: "pile" },
    h("button", { type: "button", class: `pile-button ${canStock ? "live" : ""}`, disabled: !canStock, "data-action": "draw-stock",
      "aria-label": _("Draw from the stock ({n} cards)", { n: g.stock_size }), onclick: () => a.act("draw stock") },
    h("span", { class: "card", html: cardSvg(null) })),
    h("span", { class: "pile-label" }, _("Stock: {n}", { n: g.stock_size })));
  const discardLabel = top ? _("Take {card} from the discard pile", { card: cardName(top, s.view.rules.deck) }) : _("The discard pile is empty");
  const discard = h("div", { class: "pile" },
    h("button", {
      type: "button", class: `pile-button ${canDiscard || canDrop ? "live" : ""}`, disabled: !(canDiscard || canDrop || top),
      "data-action": "draw-discard", "aria-label": canDrop ? _("Discard {card}", { card: cardName(dropCard, s.view.rules.deck) }) : discardLabel,
      onclick: () => (canDiscard ? a.act("draw discard") : canDrop ? a.act(moves.discard.get(dropCard)) : a.togglePanel("history")),
    }, top ? h("span", { class: "card", "data-card": top, html: cardSvg(top, { fourColour: s.fourColour, deck: s.view.rules.deck }) })
      : h("span", { class: "card empty" })),
    h("button", { type: "button", class: "link", onclick: () => a.togglePanel("history"), "data-action": "history",
      "aria-expanded": s.panel === "history" ? "true" : "false" }, _("Pile: {n}", { n: g.discard_pile.length })));
  return h("div", { class: "piles" }, stock, discard);
}

/** A move of the room's log in words: "Bea took 7♦ from the discard pile". */
function shortCard(s, text) {
  if (s.view && s.view.rules.deck === "french52") return text;
  return text.replace(/^[JQK]/, (r) => ({ J: "S", Q: "C", K: "R" })[r]);
}

function describe(s, g, event) {
  const name = seatName(s, event.seat);
  const [verb, ...words] = event.action.split(" ");
  const deck = s.view.rules.deck;
  const rest = words;
  const meldsText = (text) => parseMelds(text).map((m) => "[" + m.map((c) => shortCard(s, c)).join(" ") + "]").join(" ");
  if (verb === "draw") {
    if (rest[0] === "stock") return _("{name} drew from the stock", { name });
    return _("{name} took {card} from the discard pile", { name, card: event.card ? cardName(event.card, deck) : "?" });
  }
  if (verb === "discard") return _("{name} discarded {card}", { name, card: cardName(rest[0], deck) });
  if (verb === "close") return _("{name} closed: {melds}", { name, melds: meldsText(event.action) || "–" });
  if (verb === "show") {
    const melds = meldsText(event.action);
    return melds ? _("{name} showed {melds}", { name, melds }) : _("{name} showed no melds", { name });
  }
  if (verb === "layoff") {
    const onto = g.table[Number(rest[1])];
    const meld = onto ? "[" + onto.cards.map((c) => shortCard(s, c)).join(" ") + "]" : "?";
    return _("{name} laid off {card} on {meld}", { name, card: cardName(rest[0], deck), meld });
  }
  if (verb === "pass") return _("{name} passed", { name });
  if (verb === "reenter") return rest[0] === "yes" ? _("{name} re-entered", { name }) : _("{name} stayed out", { name });
  return `${name}: ${event.action}`;
}

/** The others' last two moves: two lines always, so that the hand below does not move as they come (a tap). */
function lastMoves(s, g) {
  const recent = s.log.filter((e) => e.seat !== s.view.seat).slice(-2);
  return h("ul", { class: "moves", "aria-live": "polite" }, recent.map((e) => {
    const text = describe(s, g, e);
    return h("li", { key: `e${e.n}`, dir: "auto", title: text }, text);
  }));
}

function historyPanel(s, a, g) {
  return h("div", { class: "sheet", role: "dialog", "aria-label": _("Discards") },
    h("div", { class: "sheet-head" }, h("h2", null, _("Discards")), button("✕", () => a.togglePanel(null), { cls: "small", title: _("Close") })),
    g.discards.length === 0 ? h("p", { class: "muted" }, _("Nothing discarded yet.")) :
      h("ol", { class: "discards" }, g.discards.slice().reverse().map(([seat, c], i) => h("li", { key: String(i) },
        card(s, c, { size: "tiny" }), " ", seatName(s, seat)))),
    s.log.length ? [h("h3", null, _("Moves")), h("ol", { class: "log" }, s.log.slice().reverse().map((e) => h("li", { key: `e${e.n}` }, describe(s, g, e))))] : null);
}

function handArea(s, a, g, moves) {
  const arrangement = g.arrangement;
  const groups = new Map();
  if (arrangement) {
    arrangement.melds.forEach((meld, i) => meld.forEach((c) => {
      const list = groups.get(c) || [];
      list.push(i);
      groups.set(c, list);
    }));
  }
  const used = new Map();
  const handCards = s.order.map((c, i) => {
    const list = groups.get(c) || [];
    const k = used.get(c) || 0;
    used.set(c, k + 1);
    const meld = k < list.length ? list[k] : undefined;
    return card(s, c, {
      index: String(i), key: `h${i}`, selected: s.selected === i, meld, fresh: g.last_draw === c && g.phase === "discard" && g.to_move === s.view.seat,
      onclick: () => a.select(i),
      cls: s.drag ? (s.drag.from === i ? "drag-from" : s.drag.over === i ? "drop-target" : "") : "",
    });
  });
  const selected = s.selected !== null ? s.order[s.selected] : null;
  const actions = [];
  if (g.phase === "discard" && g.to_move === s.view.seat) {
    if (selected !== null && moves.discard.has(selected)) {
      actions.push(button(_("Discard {card}", { card: cardName(selected, s.view.rules.deck) }), () => a.act(moves.discard.get(selected)),
        { cls: "primary", action: "discard" }));
    }
    if (moves.close.size) {
      actions.push(button(_("Close…"), () => a.togglePanel("close"), { cls: "accent", action: "close" }));
    }
  }
  return h("section", { class: "hand-area", "aria-label": _("Your hand") },
    h("div", { class: "hand-tools" },
      arrangement ? h("span", { class: "loose", "data-loose": String(arrangement.points) },
        _("Loose points: {points}", { points: arrangement.points })) : null,
      h("span", { class: "grow" }),
      h("span", { class: "sort", role: "group", "aria-label": _("Sort the hand") },
        button(_("Suit"), () => a.sortHand("suit"), { cls: `small ${s.sortBy === "suit" ? "on" : ""}`, action: "sort-suit", title: _("Sort by suit") }),
        button(_("Rank"), () => a.sortHand("rank"), { cls: `small ${s.sortBy === "rank" ? "on" : ""}`, action: "sort-rank", title: _("Sort by rank") }),
        button(_("Melds"), () => a.sortHand("melds"), { cls: `small ${s.sortBy === "melds" ? "on" : ""}`, action: "sort-melds", title: _("Melds first") }))),
    h("div", { class: `hand n${handCards.length}` }, handCards),
    actions.length ? h("div", { class: "actions" }, actions) : null);
}

function closePanel(s, a, g, moves) {
  const selected = s.selected !== null ? s.order[s.selected] : null;
  const options = [];
  for (const [c, list] of moves.close) {
    if (selected !== null && moves.close.has(selected) && c !== selected) continue;
    for (const text of list) options.push({ card: c, text });
  }
  return h("div", { class: "sheet", role: "dialog", "aria-label": _("Close the deal") },
    h("div", { class: "sheet-head" }, h("h2", null, _("Close the deal")), button("✕", () => a.togglePanel(null), { cls: "small", title: _("Close") })),
    h("p", { class: "muted" }, _("Choose the card to put face down and the melds to show; the others may lay off onto them.")),
    h("ul", { class: "options" }, options.map((o, i) => {
      const melds = parseMelds(o.text);
      const loose = o.text.trim().endsWith(" -") ? _("no melds") : null;
      return h("li", { key: String(i) }, h("button", { type: "button", class: "option", "data-action": "close-option",
        onclick: () => a.act(o.text) },
        h("span", { class: "face-down" }, card(s, null, { size: "small" }), h("small", null, cardName(o.card, s.view.rules.deck))),
        melds.map((m) => meldCards(s, m)), loose ? h("span", { class: "muted" }, loose) : null));
    })));
}

function meldsOnTable(s, a, g, moves) {
  const mine = s.view.seat;
  const groups = new Map();
  g.table.forEach((m, i) => {
    const list = groups.get(m.owner) || [];
    list.push({ ...m, index: i });
    groups.set(m.owner, list);
  });
  const rows = [];
  const seats = s.view.seats.map((x) => x.seat);
  for (const seat of seats) {
    const melds = groups.get(seat) || [];
    const revealed = g.revealed[seat] || [];
    if (!melds.length && !revealed.length) continue;
    rows.push(h("div", { class: "showdown-row", key: String(seat) },
      h("div", { class: "who" }, h("b", null, seatName(s, seat)), g.closer === seat ? h("span", { class: "badge" }, _("closed")) : null,
        seat === mine ? h("span", { class: "muted" }, " ", _("(you)")) : null),
      h("div", { class: "melds" },
        melds.map((m) => {
          const targets = moves.layoff.filter((l) => l.meld === m.index);
          return h("div", { class: `table-meld ${targets.length ? "target" : ""}`, key: `m${m.index}` },
            cards(s, m.cards, "small"),
            targets.map((t) => button(_("+ {card}", { card: shortCard(s, t.card) }), () => a.act(t.text),
              { cls: "small primary", action: "layoff", title: _("Lay off {card} here", { card: cardName(t.card, s.view.rules.deck) }) })));
        }),
        revealed.length ? h("div", { class: "loose-cards" }, h("small", { class: "label" }, _("loose")), cards(s, revealed, "small")) : null)));
  }
  return rows.length ? h("section", { class: "showdown" }, rows) : null;
}

function showdownActions(s, a, g, moves) {
  if (!moves.show.length && !moves.pass && !moves.layoff.length) return null;
  const best = g.arrangement ? JSON.stringify(g.arrangement.melds.map((m) => m.slice().sort()).sort()) : null;
  const showOptions = moves.show.map((text, i) => {
    const melds = parseMelds(text);
    const suggested = best !== null && JSON.stringify(melds.map((m) => m.slice().sort()).sort()) === best;
    return h("li", { key: String(i) }, h("button", { type: "button", class: `option ${suggested ? "suggested" : ""}`, "data-action": "show",
      onclick: () => a.act(text) },
      melds.length ? melds.map((m) => meldCards(s, m)) : h("span", null, _("Show no melds")),
      suggested ? h("span", { class: "badge ok" }, _("suggested")) : null));
  });
  return h("section", { class: "panel showdown-actions" },
    moves.show.length ? [h("h2", null, _("Show your melds")), h("ul", { class: "options" }, showOptions)] : null,
    moves.layoff.length ? h("p", { class: "muted" }, _("Lay off a loose card with the + buttons on the melds above.")) : null,
    moves.pass ? button(_("Pass (no more lay-offs)"), () => a.act("pass"), { cls: "primary", action: "pass" }) : null);
}

function scoreBars(s, g) {
  const limit = s.view.rules.limit;
  const top = Math.max(limit * 1.15, ...g.scores.map((x) => x + 1));
  return h("ul", { class: "scores" }, s.view.seats.map((info) => {
    const seat = info.seat;
    const total = g.scores[seat];
    const pct = Math.max(0, Math.min(100, (total / top) * 100));
    const out = !g.active.includes(seat);
    return h("li", { key: String(seat), class: out ? "out" : "" },
      h("span", { class: `dot s${seat % 8}` }),
      h("span", { class: "name" }, seatName(s, seat), out ? " · " + _("out") : ""),
      h("span", { class: "bar", role: "img", "aria-label": _("{points} of {limit}", { points: total, limit }) },
        h("span", { class: "fill", style: `inline-size:${pct}%` }),
        h("span", { class: "limit", style: `inset-inline-start:${(limit / top) * 100}%`, title: _("limit {limit}", { limit }) })),
      h("span", { class: "total" }, String(total)));
  }));
}

function chart(s) {
  const series = s.dealTotals;
  if (series.length < 2) return null;
  const limit = s.view.rules.limit;
  const top = Math.max(limit, ...series.flat()) * 1.05;
  const w = 300, hgt = 90;
  const x = (i) => (i / (series.length - 1)) * (w - 10) + 5;
  const y = (v) => hgt - 5 - (v / top) * (hgt - 10);
  const lines = s.view.seats.map((info, seat) => {
    const pts = series.map((row, i) => `${x(i).toFixed(1)},${y(row[seat] || 0).toFixed(1)}`).join(" ");
    return `<polyline points="${pts}" fill="none" class="line s${seat % 8}" stroke-width="2"/>`;
  }).join("");
  const html = `<svg viewBox="0 0 ${w} ${hgt}" aria-hidden="true"><line x1="0" x2="${w}" y1="${y(limit)}" y2="${y(limit)}" class="limit-line"/>${lines}</svg>`;
  return h("div", { class: "chart", html, role: "img", "aria-label": _("Totals over the deals") });
}

function resultBody(s, g, result) {
  const rows = s.view.seats.map((info) => {
    const seat = info.seat;
    const melds = result.table.filter((m) => m.owner === seat);
    return h("li", { key: String(seat) },
      h("div", { class: "who" }, h("b", null, seatName(s, seat)),
        result.closer === seat ? h("span", { class: "badge" }, result.chinchon ? _("chinchón!") : _("closed")) : null,
        h("span", { class: "grow" }), h("span", { class: "delta" }, _("{points} pts", { points: result.points[seat] }))),
      h("div", { class: "melds" }, melds.map((m, i) => h("span", { class: "table-meld", key: String(i) }, cards(s, m.cards, "tiny"))),
        result.loose[seat] && result.loose[seat].length ? h("span", { class: "loose-cards" }, h("small", { class: "label" }, _("loose")),
          cards(s, result.loose[seat], "tiny")) : null));
  });
  return [
    result.void ? h("p", { class: "void", "data-void": "1" }, _("Nobody closed before the stock ran out: the deal is void and nobody scores.")) : null,
    h("ul", { class: "result-rows" }, rows),
    h("h3", null, _("Totals (limit {limit})", { limit: s.view.rules.limit })),
    scoreBars(s, g),
    chart(s),
  ];
}

function resultPanel(s, a, g, result, title) {
  return h("div", { class: "sheet result", role: "dialog", "aria-label": title },
    h("div", { class: "sheet-head" }, h("h2", null, title), button("✕", () => a.dismissResult(), { cls: "small", title: _("Close") })),
    resultBody(s, g, result),
    button(_("Continue"), () => a.dismissResult(), { cls: "primary", action: "continue" }));
}

function overPanel(s, a, g) {
  const winner = g.winner;
  const mine = s.view.seat;
  return h("div", { class: "sheet over", role: "dialog", "aria-label": _("The match is over") },
    h("h2", { "data-over": "1" }, winner === null ? _("The match is over.") : winner === mine ? _("You won the match!")
      : _("{name} won the match.", { name: seatName(s, winner) })),
    h("div", { class: "row" },
      mine !== null ? button(_("Rematch"), () => a.rematch(), { cls: "primary big", action: "rematch" }) : null,
      mine !== null ? button(_("Analyse"), () => a.analyseRoom(s.view.room, mine), { action: "analyse-room",
        title: _("Every decision of yours rated by the search, in the replay") }) : null,
      button(_("Home"), () => a.goHome(), { action: "home" })),
    g.result ? [h("h3", null, _("The last deal")), resultBody(s, g, g.result)] : [scoreBars(s, g), chart(s)]);
}

function reentryPanel(s, a, moves) {
  return h("div", { class: "sheet", role: "dialog", "aria-label": _("Re-enter the match?") },
    h("h2", null, _("You went over the limit.")),
    h("p", null, _("Re-enter the match with the highest total of those still playing?")),
    h("div", { class: "row" },
      moves.reenter.includes("reenter yes") ? button(_("Yes, re-enter"), () => a.act("reenter yes"), { cls: "primary", action: "reenter-yes" }) : null,
      moves.reenter.includes("reenter no") ? button(_("No"), () => a.act("reenter no"), { action: "reenter-no" }) : null));
}

function chatPanel(s, a) {
  return h("div", { class: "sheet", role: "dialog", "aria-label": _("Chat") },
    h("div", { class: "sheet-head" }, h("h2", null, _("Chat")), button("✕", () => a.togglePanel(null), { cls: "small", title: _("Close") })),
    chatBox(s, a, s.chat, s.view.seat === null ? _("Only players chat in a room") : null));
}

function timer(s) {
  const v = s.view;
  if (!v.turn_deadline) return null;
  const left = Math.max(0, Math.ceil(v.turn_deadline - Date.now() / 1000 - s.clockSkew));
  return h("span", { class: `timer ${left <= 10 ? "low" : ""}`, role: "timer", "aria-label": _("{n} s left", { n: left }) },
    h("span", { class: "icon", html: CLOCK }), String(left));
}

function table(s, a) {
  const v = s.view;
  const g = v.game;
  const mine = v.seat;
  const moves = legal(g);
  const others = v.seats.filter((x) => x.seat !== mine);
  const over = g.match_over || g.phase === "over" || v.status === "over";
  let sheet = null;
  if (over) sheet = overPanel(s, a, g);
  else if (moves.reenter.length) sheet = reentryPanel(s, a, moves);
  else if (s.panel === "close" && moves.close.size) sheet = closePanel(s, a, g, moves);
  else if (s.panel === "result" && g.previous_result) sheet = resultPanel(s, a, g, g.previous_result, _("Deal {n}", { n: g.deal_number - 1 }));
  else if (s.panel === "history") sheet = historyPanel(s, a, g);
  else if (s.panel === "chat") sheet = chatPanel(s, a);
  return h("main", { class: "table" },
    h("div", { class: "table-bar" },
      h("span", null, _("Deal {n}", { n: g.deal_number })),
      h("span", null, _("limit {limit}", { limit: v.rules.limit })),
      g.pot ? h("span", null, _("pot {pot}", { pot: g.pot })) : null,
      timer(s),
      h("span", { class: "grow" }),
      g.previous_result ? button(_("Last deal"), () => a.togglePanel("result"), { cls: "small", action: "last-deal" }) : null,
      button(s.unread ? _("Chat ({n})", { n: s.unread }) : _("Chat"), () => a.togglePanel("chat"), { cls: "small", action: "chat" }),
      mine !== null && !over ? button(_("Leave"), () => a.leave(true), { cls: "small danger", action: "leave" }) : null),
    h("section", { class: "opponents", "aria-label": _("Opponents") }, others.map((info) => opponent(s, a, g, info))),
    g.phase === "showdown" || g.result ? meldsOnTable(s, a, g, moves) : piles(s, a, g, moves),
    h("p", { class: `status ${g.to_move === mine && mine !== null ? "mine" : ""}`, role: "status", "data-phase": g.phase,
      "data-state": String(v.state), "data-mine": g.to_move === mine && mine !== null ? "1" : "0" }, statusLine(s, g, moves)),
    lastMoves(s, g),
    g.phase === "showdown" && g.to_move === mine ? showdownActions(s, a, g, moves) : null,
    mine === null ? h("p", { class: "muted" }, _("You are watching."))
      : !g.active.includes(mine) && !g.hand.length ? h("p", { class: "status" }, _("You are out of this match; the others play on."))
        : handArea(s, a, g, moves),
    h("div", { class: "mine-score" }, scoreBars(s, g)),
    sheet ? h("div", { class: "backdrop", onclick: (e) => { if (e.target === e.currentTarget && !over) a.togglePanel(null); } }, sheet) : null);
}

// -- the page -------------------------------------------------------------------------------

function room(s, a) {
  if (s.needJoin) return joinForm(s, a);
  const v = s.view;
  if (!v || v.room !== s.route.code) {
    return h("main", { class: "home" }, h("section", { class: "panel" }, h("p", null, s.roomMissing ? _("There is no open room with this code.") : _("Connecting…")),
      s.roomMissing ? button(_("Home"), () => a.goHome()) : null));
  }
  if (v.status === "closed") {
    return h("main", { class: "home" }, h("section", { class: "panel" }, h("p", null, _("This room is closed.")), button(_("Home"), () => a.goHome())));
  }
  if (v.status === "waiting" || !v.game) return waiting(s, a);
  return table(s, a);
}

/** The whole page for a state; `a` holds the actions the controls call. */
export function render(s, a) {
  return h("div", { class: `app ${s.route.page}` },
    topBar(s, a),
    s.route.page === "room" ? room(s, a) : PAGES.has(s.route.page) ? renderPage(s, a, presetName) : home(s, a),
    s.toast ? h("div", { class: "toast", role: "alert" }, s.toast) : null);
}

export { parseMelds, legal, parseCard };
