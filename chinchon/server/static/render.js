// The screens: pure functions of the state (the seat's view from the server plus local choices).

import { h } from "./dom.js";
import { _, pgettext, LANGUAGES } from "./i18n.js";
import { parseCard } from "./cards.js";
import { button, field, select, sheet, parseMelds, legal, ICONS } from "./ui.js";
import { table } from "./table.js";
import { howToPlay } from "./help.js";
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
/** The paces the others' moves are shown at: the least time between two of them, in milliseconds. */
export const PACES = { slow: 1500, normal: 800, fast: 0 };

export function levelName(level) {
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

export function presenceBadge(info, since) {
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

/** A room's rules in a line: the preset, the points limit, the close limit and the turn timer. */
function rulesLine(preset, rules, turnSeconds) {
  return [presetName(preset), " · ", _("limit {limit}", { limit: rules.limit }), " · ",
    _("close with {limit} points or less", { limit: rules.close_limit }), " · ",
    turnSeconds ? _("{n} s a turn", { n: turnSeconds }) : _("no turn timer")];
}

// -- the top bar ------------------------------------------------------------------------

function topBar(s, a) {
  const v = s.view;
  const conn = { open: _("connected"), connecting: _("connecting…"), closed: _("reconnecting…") }[s.conn] || "";
  const inRoom = s.route.page === "room" && v;
  return h("header", { class: "top" },
    h("a", { class: "brand", href: "/", "aria-label": _("Home"), onclick: (e) => { e.preventDefault(); a.goHome(); } },
      h("span", { class: "icon", html: ICONS.logo }), h("span", { class: "brand-text" }, "Chinchón")),
    inRoom ? h("span", { class: "room-code", title: _("Room code") }, v.room) : null,
    inRoom ? h("span", { class: "watchers", title: _("Watchers"), "aria-label": _("Watchers: {n}", { n: v.watchers }) },
      h("span", { class: "icon", html: ICONS.eye }), String(v.watchers)) : null,
    h("span", { class: `conn ${s.conn}`, role: "status", "aria-label": conn, title: conn }),
    h("span", { class: "grow" }),
    s.route.page !== "room" ? h("a", { class: "top-link", href: "#/rules", "data-action": "how-to-play" },
      h("span", { class: "icon", html: ICONS.help }), h("span", { class: "words" }, _("How to play"))) : null,
    h("button", { type: "button", class: "toggle", title: _("Settings"), "aria-label": _("Settings"), "data-action": "settings",
      onclick: () => a.togglePanel("settings"), html: ICONS.gear }),
    h("label", { class: "inline" },
      h("span", { class: "sr" }, _("Language")),
      h("select", { "aria-label": _("Language"), onchange: (e) => a.setLanguage(e.target.value), value: s.lang },
        LANGUAGES.map(([code, label]) => h("option", { value: code, selected: code === s.lang }, label)))),
  );
}

function check(name, label, checked, onchange) {
  return h("label", { class: "field check" },
    h("input", { type: "checkbox", name, checked, onchange: (e) => onchange(e.target.checked) }), h("span", null, label));
}

function settingsSheet(s, a) {
  return sheet(s, a, _("Settings"), [
    check("four_colour", _("Four-colour cards"), s.fourColour, () => a.toggleFourColour()),
    check("sound", _("Sounds: your turn, a close, the end of the match"), s.sound, () => a.toggleSound()),
    check("tips", _("Tips while playing, one rule at a time"), !s.tipsOff, (on) => a.setTips(on)),
    field(_("The bots' moves are shown"), select(s.pace, [["slow", _("slowly")], ["normal", _("at a pace you can follow")],
      ["fast", _("as fast as they come")]], (v) => a.setPace(v), "pace")),
  ], { cls: "settings" });
}

// -- home ---------------------------------------------------------------------------------

function nameField(s, a, opts = {}) {
  return field(_("Your name"), h("input", { name: "name", value: s.name, maxlength: "24", autocomplete: "nickname",
    placeholder: opts.placeholder ? _("Your name") : null, oninput: (e) => a.setName(e.target.value),
    "aria-invalid": s.nameMissing ? "true" : null }),
  s.nameMissing ? _("Give your name first.") : null);
}

function playNow(s, a) {
  const p = s.play;
  const most = (MAX_SEATS[p.preset] || 4) - 1;
  const opponents = [];
  for (let n = 1; n <= most; n++) opponents.push([n, String(n)]);
  return h("div", { class: "play-now" },
    h("div", { class: "grid three" },
      field(_("Opponents"), select(Math.min(p.opponents, most), opponents, (v) => a.setPlay({ opponents: Number(v) }), "opponents")),
      field(_("Their level"), select(p.bot_level, LEVELS.map((l) => [l, levelName(l)]), (v) => a.setPlay({ bot_level: v }), "play_level")),
      field(_("Rules"), select(p.preset, PRESETS.map((x) => [x, presetName(x)]), (v) => a.setPlay({ preset: v }), "play_preset"))),
    h("small", { class: "muted", "data-play-level-description": p.bot_level }, levelDescription(p.bot_level)),
    h("details", { class: "more" }, h("summary", null, _("More choices")),
      h("div", { class: "grid" },
        field(_("Points limit"), select(p.limit, [["", _("as the rules say")], ["50", "50"], ["100", "100"], ["150", "150"]],
          (v) => a.setPlay({ limit: v }), "play_limit")),
        field(_("Turn timer"), select(p.turn, [["", _("none")], ["30", _("{n} s", { n: 30 })], ["60", _("{n} s", { n: 60 })],
          ["120", _("{n} s", { n: 120 })]], (v) => a.setPlay({ turn: v }), "play_turn")))),
    button(_("Play now against bots"), () => a.createRoom(true), { cls: "primary big", action: "play-now" }));
}

function home(s, a) {
  const f = s.form;
  const maxSeats = MAX_SEATS[f.preset] || 4;
  const seatOptions = [];
  for (let n = 2; n <= maxSeats; n++) seatOptions.push([n, String(n)]);
  return h("main", { class: "home" },
    h("section", { class: "panel hero" },
      h("h1", null, _("Chinchón, the Spanish rummy")),
      h("p", { class: "lead" }, _("Make melds, leave few points loose, close before the others. New to the game?"), " ",
        h("a", { href: "#/rules", "data-action": "rules" }, _("How to play"))),
      s.account ? h("p", { class: "playing-as" }, _("You play as {name}.", { name: s.account.name })) : nameField(s, a, { placeholder: true }),
      h("p", { class: "row links" },
        h("a", { href: "#/account", "data-link": "account" }, s.account ? _("Your account") : _("Log in or create an account")),
        h("a", { href: "#/leaderboard", "data-link": "leaderboard" }, _("Leaderboards"))),
      playNow(s, a)),
    h("section", { class: "panel" },
      h("h2", null, _("A room for friends")),
      h("div", { class: "grid" },
        field(_("Rules"), select(f.preset, PRESETS.map((p) => [p, presetName(p)]),
          // The seats as they are when the rules change: a choice made since the last render counts.
          (v) => a.setForm((now) => ({ preset: v, seats: Math.min(now.seats, MAX_SEATS[v] || 4) })), "preset")),
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
      h("p", { class: "muted small" }, f.public ? _("Anyone may find this room in the lobby.") : _("Private: only those you send the link to can come in.")),
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

export function chatBox(s, a, lines, disabledReason) {
  return h("div", { class: "chat" },
    h("ol", { class: "lines", "aria-live": "polite" }, lines.slice(-50).map((l, i) => h("li", { key: String(i) },
      h("b", null, l.name, ": "), h("span", { dir: "auto" }, l.text)))),
    h("form", { class: "row", onsubmit: (e) => { e.preventDefault(); a.sendChat(); } },
      h("input", { name: "chat", value: s.chatText, maxlength: "300", placeholder: disabledReason || _("Say something"),
        "aria-label": _("Chat message"), disabled: Boolean(disabledReason), oninput: (e) => a.setChatText(e.target.value) }),
      h("button", { type: "submit", disabled: Boolean(disabledReason) }, _("Send"))));
}

// -- how to play ----------------------------------------------------------------------------

function rulesPage(s, a) {
  return h("main", { class: "home single" }, h("section", { class: "panel" },
    h("div", { class: "sheet-head" }, h("h1", null, _("How to play")), button(_("Back"), () => a.goHome(), { action: "back" })),
    field(_("Rules"), select(s.rulesPreset, PRESETS.map((p) => [p, presetName(p)]), (v) => a.setRulesPreset(v), "rules_preset")),
    howToPlay(s, s.help)));
}

// -- joining a room by its link ------------------------------------------------------------

function joinForm(s, a) {
  const info = s.roomInfo;
  return h("main", { class: "home" }, h("section", { class: "panel" },
    h("h1", null, _("Room {code}", { code: s.route.code })),
    s.account ? h("p", { class: "playing-as" }, _("You play as {name}.", { name: s.account.name })) : nameField(s, a),
    h("div", { class: "row" },
      !info || (info.status === "waiting" && info.taken < info.seats)
        ? button(_("Take a seat"), () => a.joinRoom(s.route.code), { cls: "primary", action: "take-seat" }) : null,
      button(_("Watch"), () => a.watchRoom(s.route.code), { action: "watch" }),
      button(_("Back"), () => a.goHome())),
    // The room's details come after the controls, so that their coming moves nothing a tap is aimed at.
    h("div", { class: "room-info", "data-rules": info ? "1" : "0" }, info ? [
      h("p", { class: "room-rules" }, rulesLine(info.preset, info.rules, info.turn_seconds), info.rated ? " · " + _("rated") : ""),
      h("p", null, _("{taken}/{seats} seats", { taken: info.taken, seats: info.seats }), info.names.length ? " · " + info.names.join(", ") : ""),
      button(_("How to play"), () => a.togglePanel("help"), { cls: "small", action: "help" }),
    ] : null),
    s.panel === "help" ? h("div", { class: "backdrop", onclick: (e) => { if (e.target === e.currentTarget) a.togglePanel(null); } },
      sheet(s, a, _("How to play"), howToPlay(s, s.help), { cls: "help" })) : null));
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
      h("p", { class: "muted room-rules" }, rulesLine(v.preset, v.rules, v.turn_seconds), v.rated ? " · " + _("rated") : "", " · ",
        h("button", { type: "button", class: "link", onclick: () => a.togglePanel("help"), "data-action": "help" }, _("How to play"))),
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
      chatBox(s, a, s.chat, mine === null ? _("Only players chat in a room") : null)),
    s.panel === "help" ? h("div", { class: "backdrop", onclick: (e) => { if (e.target === e.currentTarget) a.togglePanel(null); } },
      sheet(s, a, _("How to play"), howToPlay(s, s.help), { cls: "help" })) : null);
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
  const page = s.route.page === "room" ? room(s, a) : s.route.page === "rules" ? rulesPage(s, a)
    : PAGES.has(s.route.page) ? renderPage(s, a, presetName) : home(s, a);
  return h("div", { class: `app ${s.route.page}` },
    topBar(s, a),
    page,
    s.panel === "settings" ? h("div", { class: "backdrop", onclick: (e) => { if (e.target === e.currentTarget) a.togglePanel(null); } },
      settingsSheet(s, a)) : null,
    s.toast ? h("div", { class: "toast", role: "alert" }, s.toast) : null);
}

export { parseMelds, legal, parseCard };
