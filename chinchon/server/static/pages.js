// The players' pages: the account, the leaderboards, a player's page and a finished match's replay.

import { h } from "./dom.js";
import { _, cardName, language } from "./i18n.js";
import { cardSvg } from "./cards.js";
import { currentAccount, getJson, heldSeats, postJson } from "./account.js";
import { analysisActions, analysisPanel, defaultSeat } from "./analysis.js";

export const PAGES = new Set(["account", "leaderboard", "player", "replay"]);

/** The page a location's hash names: {page, arg}, or null for the home page and rooms. */
export function pageRoute(hash) {
  const m = hash.match(/^#\/(account|leaderboard|player|replay)(?:\/(.*))?$/);
  if (!m) return null;
  return { page: m[1], arg: m[2] ? decodeURIComponent(m[2]) : null };
}

export function pageHash(page, arg) {
  return arg ? `#/${page}/${encodeURIComponent(arg)}` : `#/${page}`;
}

function button(label, onclick, opts = {}) {
  return h("button", { type: opts.submit ? "submit" : "button", class: opts.cls || "", onclick, "data-action": opts.action,
    disabled: opts.disabled, title: opts.title, "aria-label": opts.title }, label);
}

function link(label, hash, opts = {}) {
  return h("a", { href: hash, class: opts.cls || "", "data-link": opts.action }, label);
}

function field(label, input) {
  return h("label", { class: "field" }, h("span", null, label), input);
}

function when(seconds) {
  try {
    return new Date(seconds * 1000).toLocaleString(language(), { dateStyle: "medium", timeStyle: "short" });
  } catch {
    return new Date(seconds * 1000).toISOString();
  }
}

/** A rating pool's name ("fournier limit=50") in words: the preset's name and its options. */
function poolName(pool, presetName) {
  const [preset, ...options] = pool.split(" ");
  return [presetName(preset), ...options].join(" · ");
}

// -- the account page -------------------------------------------------------------------------

function accountPage(s, a) {
  const account = s.account;
  if (account) {
    const seats = (s.pageData && s.pageData.seats) || [];
    return h("main", { class: "home pages" },
      h("section", { class: "panel" },
        h("h1", null, _("Your account")),
        h("p", { "data-account": account.name }, _("You are logged in as {name}.", { name: account.name })),
        h("p", null, link(_("Your page: ratings and matches"), pageHash("player", account.name), { action: "my-page" })),
        h("div", { class: "row" },
          button(_("Log out"), () => a.logout(), { action: "logout" }),
          button(_("Log out everywhere"), () => a.logoutEverywhere(), { cls: "danger", action: "logout-everywhere" }))),
      h("section", { class: "panel" },
        h("h2", null, _("Your rooms")),
        seats.length === 0 ? h("p", { class: "muted" }, _("You have no seat in an open room."))
          : h("ul", { class: "lobby" }, seats.map((seat) => h("li", { key: seat.code },
            h("span", { class: "code" }, seat.code),
            link(_("Open"), `#/room/${seat.code}`, { cls: "button small", action: `room-${seat.code}` }))))),
      h("section", { class: "panel" },
        h("h2", null, _("Change the password")),
        h("form", { onsubmit: (e) => { e.preventDefault(); a.changePassword(e.target); } },
          field(_("Password now"), h("input", { type: "password", name: "old", autocomplete: "current-password", required: true })),
          field(_("New password"), h("input", { type: "password", name: "new", autocomplete: "new-password", minlength: "8", required: true })),
          button(_("Change the password"), null, { submit: true, cls: "primary", action: "change-password" }))));
  }
  return h("main", { class: "home pages" },
    h("section", { class: "panel" },
      h("h1", null, _("Log in")),
      h("p", { class: "muted" }, _("With an account your seats follow you to any device, and rated rooms count for the leaderboards.")),
      h("form", { class: "login", onsubmit: (e) => { e.preventDefault(); a.login(e.target); } },
        field(_("Name"), h("input", { name: "login-name", autocomplete: "username", maxlength: "24", required: true })),
        field(_("Password"), h("input", { type: "password", name: "login-password", autocomplete: "current-password", required: true })),
        button(_("Log in"), null, { submit: true, cls: "primary", action: "login" }))),
    h("section", { class: "panel" },
      h("h2", null, _("Create an account")),
      h("p", { class: "muted" }, _("Your name is public; the seat you are in now becomes the account's.")),
      h("form", { class: "register", onsubmit: (e) => { e.preventDefault(); a.register(e.target); } },
        field(_("Name"), h("input", { name: "register-name", autocomplete: "username", maxlength: "24", required: true })),
        field(_("Password (at least 8 characters)"), h("input", { type: "password", name: "register-password",
          autocomplete: "new-password", minlength: "8", required: true })),
        field(_("The password again"), h("input", { type: "password", name: "register-again", autocomplete: "new-password",
          minlength: "8", required: true })),
        button(_("Create the account"), null, { submit: true, cls: "primary", action: "register" }))));
}

// -- leaderboards -------------------------------------------------------------------------------

function leaderboardPage(s, a, presetName) {
  const data = s.pageData;
  if (!data) return loading(s);
  const pools = data.pools || [];
  const pool = data.pool;
  return h("main", { class: "home pages" },
    h("section", { class: "panel wide" },
      h("h1", null, _("Leaderboards")),
      pools.length === 0 ? h("p", { class: "muted" }, _("No rated match has been played yet.")) :
        h("div", { class: "row pools", role: "group", "aria-label": _("Rules") }, pools.map(([name, count]) =>
          link(`${poolName(name, presetName)} (${count})`, pageHash("leaderboard", name),
            { cls: `button small ${name === pool ? "on" : ""}`, action: `pool-${name}` }))),
      pool && data.board ? h("table", { class: "board" },
        h("thead", null, h("tr", null, h("th", null, _("Rank")), h("th", null, _("Player")), h("th", null, _("Rating")),
          h("th", null, _("Played")), h("th", null, _("Won")))),
        h("tbody", null, data.board.players.map((row) => h("tr", { key: row.name },
          h("td", null, String(row.rank)), h("td", null, link(row.name, pageHash("player", row.name))),
          h("td", { class: "number" }, row.rating.toFixed(1)), h("td", { class: "number" }, String(row.games)),
          h("td", { class: "number" }, String(row.wins)))))) : null,
      h("p", { class: "muted" }, _("A rating is OpenSkill's estimate less three times its uncertainty: it starts at 0 and grows as you win rated matches."))));
}

// -- a player's page ----------------------------------------------------------------------------

const LINE_CLASSES = ["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"];

function ratingChart(history) {
  if (!history.length) return null;
  const pools = [...new Set(history.map((p) => p.pool))];
  const values = history.map((p) => p.rating);
  const low = Math.min(0, ...values), high = Math.max(1, ...values);
  const w = 320, hgt = 120, pad = 8;
  const x = (i, n) => (n <= 1 ? w / 2 : pad + (i / (n - 1)) * (w - 2 * pad));
  const y = (v) => hgt - pad - ((v - low) / (high - low)) * (hgt - 2 * pad);
  const lines = pools.map((pool, k) => {
    const points = history.filter((p) => p.pool === pool);
    const pts = points.map((p, i) => `${x(i, points.length).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ");
    const dots = points.map((p, i) => `<circle cx="${x(i, points.length).toFixed(1)}" cy="${y(p.rating).toFixed(1)}" r="2.5" class="dot-line ${LINE_CLASSES[k % 8]}"/>`).join("");
    return `<polyline points="${pts}" fill="none" class="line ${LINE_CLASSES[k % 8]}" stroke-width="2"/>${dots}`;
  }).join("");
  const zero = `<line x1="0" x2="${w}" y1="${y(0).toFixed(1)}" y2="${y(0).toFixed(1)}" class="zero-line"/>`;
  const labels = `<text x="2" y="12" class="axis">${high.toFixed(1)}</text><text x="2" y="${hgt - 2}" class="axis">${low.toFixed(1)}</text>`;
  return h("div", { class: "chart rating-chart", role: "img", "aria-label": _("Rating over time"),
    html: `<svg viewBox="0 0 ${w} ${hgt}" aria-hidden="true">${zero}${lines}${labels}</svg>` });
}

function gameRow(game, name, presetName) {
  const me = game.players.find((p) => p.player === name);
  const players = game.players.map((p) => `${p.name} ${p.score}${p.left ? " (" + _("left") + ")" : ""}`).join(", ");
  let result = "";
  if (me) result = me.won ? _("won") : me.left ? _("left · last") : _("place {rank}", { rank: me.rank });
  return h("li", { key: game.id, "data-game": game.id },
    h("div", { class: "game-head" },
      h("b", null, when(game.finished)),
      h("span", null, poolName(game.pool, presetName)),
      game.rated ? h("span", { class: "badge ok" }, _("rated")) : h("span", { class: "badge" }, _("unrated")),
      h("span", { class: "result" }, result)),
    h("div", { class: "muted" }, players),
    h("div", { class: "row" },
      link(_("Replay"), pageHash("replay", game.id), { cls: "button small primary", action: "replay" }),
      h("a", { href: `/api/games/${encodeURIComponent(game.id)}/record`, download: `chinchon-${game.id}.json`,
        class: "button small", "data-link": "download" }, _("Download the record"))));
}

function playerPage(s, a, presetName) {
  const data = s.pageData;
  if (!data) return loading(s);
  if (data.missing) return h("main", { class: "home pages" }, h("section", { class: "panel" }, h("p", null, data.missing)));
  const p = data.player;
  return h("main", { class: "home pages" },
    h("section", { class: "panel wide" },
      h("h1", { "data-player": p.name }, p.name),
      h("p", null, _("Matches played: {games} · won: {wins}", { games: p.games, wins: p.wins })),
      p.ratings.length ? h("table", { class: "board" },
        h("thead", null, h("tr", null, h("th", null, _("Rules")), h("th", null, _("Rating")), h("th", null, _("Played")),
          h("th", null, _("Won")))),
        h("tbody", null, p.ratings.map((r) => h("tr", { key: r.pool },
          h("td", null, link(poolName(r.pool, presetName), pageHash("leaderboard", r.pool))),
          h("td", { class: "number" }, r.rating.toFixed(1)), h("td", { class: "number" }, String(r.games)),
          h("td", { class: "number" }, String(r.wins)))))) : h("p", { class: "muted" }, _("No rated match yet.")),
      ratingChart(p.history)),
    h("section", { class: "panel wide" },
      h("h2", null, _("Matches")),
      data.games.length === 0 ? h("p", { class: "muted" }, _("No finished match yet.")) :
        h("ol", { class: "games" }, data.games.map((g) => gameRow(g, p.name, presetName)))));
}

// -- a replay -----------------------------------------------------------------------------------

function cardsOf(list, deck, size = "small") {
  return h("span", { class: "cards" }, list.map((c, i) => h("span", { key: String(i), class: `card ${size}`, role: "img",
    "aria-label": cardName(c, deck), title: cardName(c, deck), "data-card": c, html: cardSvg(c, { deck }) })));
}

function replayPage(s, a, presetName) {
  const data = s.pageData;
  if (!data) return loading(s);
  if (data.missing) return h("main", { class: "home pages" }, h("section", { class: "panel" }, h("p", null, data.missing)));
  const replay = data.replay;
  const steps = replay.steps;
  const i = Math.max(0, Math.min(steps.length - 1, s.replayStep || 0));
  const step = steps[i];
  const deck = replay.rules.deck;
  const last = i === steps.length - 1;
  const game = replay.game;
  return h("main", { class: "table replay" },
    h("div", { class: "table-bar" },
      h("span", null, poolName(game.pool, presetName)),
      h("span", null, when(game.finished)),
      h("span", { class: "grow" }),
      h("a", { href: `/api/games/${encodeURIComponent(game.id)}/record`, download: `chinchon-${game.id}.json`,
        class: "button small", "data-link": "download" }, _("Download the record"))),
    h("div", { class: "replay-controls row", role: "group", "aria-label": _("Replay") },
      button("«", () => a.replayGo(0), { cls: "small", action: "replay-first", disabled: i === 0, title: _("The first step") }),
      button(_("◀ Deal"), () => a.replayDeal(-1), { cls: "small", action: "replay-previous-deal", disabled: i === 0 }),
      button("‹", () => a.replayGo(i - 1), { cls: "small", action: "replay-previous", disabled: i === 0, title: _("The step before") }),
      h("span", { class: "step-count", "data-step": String(i), "data-steps": String(steps.length) },
        _("Step {n} of {total}", { n: i + 1, total: steps.length })),
      button("›", () => a.replayGo(i + 1), { cls: "small primary", action: "replay-next", disabled: last, title: _("The next step") }),
      button(_("Deal ▶"), () => a.replayDeal(1), { cls: "small", action: "replay-next-deal", disabled: last }),
      button("»", () => a.replayGo(steps.length - 1), { cls: "small", action: "replay-last", disabled: last, title: _("The last step") })),
    h("input", { type: "range", min: "0", max: String(steps.length - 1), value: String(i), name: "replay-step",
      "aria-label": _("Step"), oninput: (e) => a.replayGo(Number(e.target.value)) }),
    h("p", { class: "status replay-text", role: "status", dir: "auto" },
      step.kind === "deal_started" ? null : [_("Deal {n}", { n: step.deal }), " · "], step.text),
    h("section", { class: "replay-seats" }, replay.seats.map((name, seat) => {
      const melds = step.table.filter((m) => m.owner === seat);
      const out = !step.active.includes(seat);
      return h("div", { key: String(seat), class: `replay-seat ${step.seat === seat ? "to-move" : ""} ${out ? "out" : ""}`,
        "data-seat": String(seat) },
        h("div", { class: "who" }, h("b", null, name), h("span", { class: "grow" }),
          h("span", { class: "total" }, _("{points} pts", { points: step.scores[seat] })),
          step.result ? h("span", { class: "delta" }, _("{points} pts this deal", { points: step.result.points[seat] })) : null),
        cardsOf(step.hands[seat], deck),
        melds.length ? h("div", { class: "melds" }, melds.map((m, k) => h("span", { class: "table-meld", key: String(k) },
          cardsOf(m.cards, deck, "tiny")))) : null);
    })),
    h("div", { class: "replay-piles row" },
      h("span", null, _("Stock: {n}", { n: step.stock })),
      step.pile.length ? [h("span", null, _("Discard pile:")), cardsOf(step.pile.slice(-1), deck)] : null,
      step.face_down ? [h("span", null, _("Face down:")), cardsOf([step.face_down], deck)] : null),
    last ? h("p", { class: "over-line", "data-over": "1" }, replay.winner === null ? _("The match is over.")
      : _("{name} won the match.", { name: replay.seats[replay.winner] })) : null,
    analysisPanel(s, a, replay, i));
}

function loading(s) {
  return h("main", { class: "home pages" }, h("section", { class: "panel" },
    h("p", null, s.pageError || _("Loading…"))));
}

/** The page of a players' route. */
export function renderPage(s, a, presetName) {
  const page = s.route.page;
  if (page === "account") return accountPage(s, a);
  if (page === "leaderboard") return leaderboardPage(s, a, presetName);
  if (page === "player") return playerPage(s, a, presetName);
  return replayPage(s, a, presetName);
}

// -- what the pages do ---------------------------------------------------------------------------

/** The pages' actions, over the app's state: `ctx` has state, update(changes), toast(text) and go(hash). */
export function pageActions(ctx) {
  const { state, update, toast, go } = ctx;
  const analysis = analysisActions(ctx);
  let loadingFor = null;

  async function load(route) {
    const key = JSON.stringify(route);
    loadingFor = key;
    update({ pageData: null, pageError: null, replayStep: 0 });
    try {
      let data = null;
      if (route.page === "account") {
        data = state.account ? await getJson("/api/account/seats", state.lang) : {};
      } else if (route.page === "leaderboard") {
        const pools = (await getJson("/api/leaderboard", state.lang)).pools;
        const pool = route.arg || (pools.length ? pools[0][0] : null);
        const board = pool ? await getJson(`/api/leaderboard/${encodeURIComponent(pool)}`, state.lang) : null;
        data = { pools, pool, board };
      } else if (route.page === "player") {
        const name = encodeURIComponent(route.arg || "");
        try {
          const player = await getJson(`/api/players/${name}`, state.lang);
          const games = (await getJson(`/api/players/${name}/games`, state.lang)).games;
          data = { player, games };
        } catch (e) {
          data = { missing: e.message };
        }
      } else if (route.page === "replay") {
        const id = encodeURIComponent(route.arg || "");
        try {
          data = { replay: await getJson(`/api/games/${id}/replay?lang=${encodeURIComponent(state.lang)}`, state.lang) };
        } catch (e) {
          data = { missing: e.message };
        }
      }
      if (loadingFor === key) update({ pageData: data });
      if (loadingFor === key && data && data.replay) {
        const id = data.replay.game.id;
        const asked = state.analysis && state.analysis.game === id ? state.analysis.seat : null;
        analysis.analysisOpen(id, asked === null ? defaultSeat(state, data.replay) : asked);
      }
    } catch (e) {
      if (loadingFor === key) update({ pageError: String(e.message || e) });
    }
  }

  async function signedIn(promise) {
    try {
      const answer = await promise;
      update({ account: answer.account });
      return true;
    } catch (e) {
      toast(e.message);
      return false;
    }
  }

  return {
    loadPage(route) {
      load(route);
    },
    async refreshAccount() {
      update({ account: await currentAccount(state.lang) });
    },
    async login(form) {
      const body = { name: form.elements["login-name"].value, password: form.elements["login-password"].value, seats: heldSeats() };
      if (await signedIn(postJson("/api/account/login", body, state.lang))) {
        form.reset();
        load(state.route);
      }
    },
    async register(form) {
      const password = form.elements["register-password"].value;
      if (password !== form.elements["register-again"].value) {
        toast(_("The two passwords differ."));
        return;
      }
      const body = { name: form.elements["register-name"].value, password, seats: heldSeats() };
      if (await signedIn(postJson("/api/account/register", body, state.lang))) {
        form.reset();
        load(state.route);
      }
    },
    async logout() {
      await signedIn(postJson("/api/account/logout", {}, state.lang));
      load(state.route);
    },
    async logoutEverywhere() {
      if (!window.confirm(_("Log out on every device?"))) return;
      await signedIn(postJson("/api/account/logout-everywhere", {}, state.lang));
      load(state.route);
    },
    async changePassword(form) {
      const body = { old: form.elements.old.value, new: form.elements.new.value };
      if (await signedIn(postJson("/api/account/password", body, state.lang))) {
        form.reset();
        toast(_("The password is changed; your other devices are logged out."));
      }
    },
    replayGo(i) {
      const steps = state.pageData && state.pageData.replay ? state.pageData.replay.steps.length : 0;
      update({ replayStep: Math.max(0, Math.min(steps - 1, i)) });
    },
    replayDeal(direction) {
      const replay = state.pageData && state.pageData.replay;
      if (!replay) return;
      const steps = replay.steps;
      let i = state.replayStep || 0;
      const deal = steps[i].deal;
      if (direction > 0) {
        while (i < steps.length - 1 && steps[i].deal === deal) i++;
      } else {
        // To the start of this deal, or of the one before when already there.
        const startOf = (k) => { while (k > 0 && steps[k - 1].deal === steps[k].deal) k--; return k; };
        const start = startOf(i);
        i = start < i ? start : start > 0 ? startOf(start - 1) : 0;
      }
      update({ replayStep: i });
    },
    ...analysis,
    go,
  };
}
