// The table: the opponents, the piles or the melds of a showdown, the player's hand and the sheets over it.
// Pure functions of the state, as every screen.

import { h } from "./dom.js";
import { _, cardName, withNodes } from "./i18n.js";
import { cardSvg } from "./cards.js";
import {
  card, cards, cardText, meldText, meldsText, meldsNames, button, iconButton, seatName, parseMelds, legal, without, points,
  suggestedLayoff, sheet, ICONS,
} from "./ui.js";
import { currentTip, tipBox, howToPlay, keysTable } from "./help.js";
// render.js imports this module too: the two only call each other inside functions, after both have loaded.
import { presenceBadge, chatBox } from "./render.js";

function opponent(s, a, g, info) {
  const seat = info.seat;
  const out = !g.active.includes(seat);
  const classes = ["opponent", g.to_move === seat ? "to-move" : "", out ? "out" : ""].join(" ");
  const count = g.hand_sizes[seat] || 0;
  return h("div", { class: classes, key: String(seat), "data-seat": String(seat) },
    h("div", { class: "who" },
      h("span", { class: "name" }, seatName(s, seat)),
      g.dealer === seat ? h("span", { class: "badge dealer", "data-dealer": "1" }, _("dealer")) : null),
    h("div", { class: "meta" },
      presenceBadge(info, s.presenceAt),
      h("span", { class: "count", "aria-label": _("{n} cards", { n: count }) }, h("span", { class: "icon", html: ICONS.back }), String(count)),
      h("span", { class: "total", title: _("total points") }, _("{points} pts", { points: g.scores[seat] })),
      out ? h("span", { class: "badge warn" }, _("out")) : null),
    g.taken[seat] && g.taken[seat].length ? h("div", { class: "taken", title: _("cards known in this hand") },
      h("span", { class: "sr" }, _("Known cards:")), cards(s, g.taken[seat], "tiny")) : null);
}

function statusLine(s, g, moves) {
  const mine = s.view.seat;
  if (g.match_over || s.view.status === "over") return "";
  if (moves.reenter.length) return _("You are out. Re-enter the match?");
  if (g.reentry_pending && g.reentry_pending.length) {
    return _("{name} decides whether to re-enter.", { name: seatName(s, g.reentry_pending[0]) });
  }
  if (g.phase === "over" || g.to_move === null) return "";
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
  const deck = s.view.rules.deck;
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
  const discardLabel = top ? _("Take {card} from the discard pile", { card: cardName(top, deck) }) : _("The discard pile is empty");
  const discard = h("div", { class: "pile" },
    h("button", {
      type: "button", class: `pile-button ${canDiscard || canDrop ? "live" : ""}`, disabled: !(canDiscard || canDrop || top),
      "data-action": "draw-discard", "aria-label": canDrop ? _("Discard {card}", { card: cardName(dropCard, deck) }) : discardLabel,
      onclick: () => (canDiscard ? a.act("draw discard") : canDrop ? a.act(moves.discard.get(dropCard)) : a.togglePanel("history")),
    }, top ? h("span", { class: "card", "data-card": top, html: cardSvg(top, { fourColour: s.fourColour, deck }) })
      : h("span", { class: "card empty" })),
    h("button", { type: "button", class: "link", onclick: () => a.togglePanel("history"), "data-action": "history",
      "aria-expanded": s.panel === "history" ? "true" : "false" }, _("Pile: {n}", { n: g.discard_pile.length })));
  return h("div", { class: "piles" }, stock, discard);
}

/** A move of the room's log in words, its cards drawn as the deck draws them: [nodes, the same in plain text]. */
export function describe(s, g, entry) {
  if (entry.note === "timeout") {
    const text = _("Time's up: a bot played your turn.");
    return [[text], text];
  }
  if (entry.note === "reshuffle") {
    const text = _("The stock ran out: the discard pile was shuffled into a new stock.");
    return [[text], text];
  }
  const name = seatName(s, entry.seat);
  const deck = s.view.rules.deck;
  const [verb, ...rest] = entry.action.split(" ");
  const said = (template, params, plain) => [withNodes(template, params), _(template, plain)];
  if (verb === "draw") {
    if (rest[0] === "stock") return said(_("{name} drew from the stock"), { name }, { name });
    const c = entry.card;
    return said(_("{name} took {card} from the discard pile"), { name, card: c ? cardText(s, c) : "?" },
      { name, card: c ? cardName(c, deck) : "?" });
  }
  if (verb === "discard") {
    return said(_("{name} discarded {card}"), { name, card: cardText(s, rest[0]) }, { name, card: cardName(rest[0], deck) });
  }
  const melds = parseMelds(entry.action);
  if (verb === "close") {
    return said(_("{name} closed: {melds}"), { name, melds: melds.length ? meldsText(s, melds) : "–" },
      { name, melds: meldsNames(s, melds) || "–" });
  }
  if (verb === "show") {
    if (!melds.length) return said(_("{name} showed no melds"), { name }, { name });
    return said(_("{name} showed {melds}"), { name, melds: meldsText(s, melds) }, { name, melds: meldsNames(s, melds) });
  }
  if (verb === "layoff") {
    const onto = entry.meld || (g.table[Number(rest[1])] || {}).cards;
    return said(_("{name} laid off {card} on {meld}"), { name, card: cardText(s, rest[0]), meld: onto ? meldText(s, onto) : "?" },
      { name, card: cardName(rest[0], deck), meld: onto ? meldsNames(s, [onto]) : "?" });
  }
  if (verb === "pass") return said(_("{name} passed"), { name }, { name });
  if (verb === "reenter") {
    return rest[0] === "yes" ? said(_("{name} re-entered"), { name }, { name }) : said(_("{name} stayed out"), { name }, { name });
  }
  return [[`${name}: ${entry.action}`], `${name}: ${entry.action}`];
}

/** The last moves of the others (and what the table said: time's up, a new stock), the newest last: three lines
 * always, so that the hand below does not move as they come (a tap). */
function lastMoves(s, g) {
  const recent = s.log.filter((e) => e.note || e.seat !== s.view.seat).slice(-3);
  return h("ul", { class: "moves", "aria-live": "polite" }, recent.map((e, i) => {
    const [nodes, text] = describe(s, g, e);
    return h("li", { key: `e${e.n}${e.note || ""}`, "data-key": `${e.n}${e.note || ""}`, dir: "auto", title: text,
      class: [i < recent.length - 1 ? "older" : "", e.note ? "note" : ""].join(" ").trim() }, nodes);
  }));
}

function historyPanel(s, a, g) {
  return sheet(s, a, _("Discards"), [
    g.discards.length === 0 ? h("p", { class: "muted" }, _("Nothing discarded yet.")) :
      h("ol", { class: "discards" }, g.discards.slice().reverse().map(([seat, c], i) => h("li", { key: String(i) },
        card(s, c, { size: "tiny" }), " ", seatName(s, seat)))),
    s.log.length ? [h("h3", null, _("Moves")), h("ol", { class: "log" }, s.log.slice().reverse().map((e) => {
      const [nodes, text] = describe(s, g, e);
      return h("li", { key: `e${e.n}${e.note || ""}`, title: text, class: e.note ? "note" : "" }, nodes);
    }))] : null,
  ]);
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
      index: String(i), key: `h${i}`, selected: s.selected === i, meld, fresh: s.freshCard === c && g.phase === "discard" && g.to_move === s.view.seat,
      onclick: () => a.select(i),
      cls: s.drag ? (s.drag.from === i ? "drag-from" : s.drag.over === i ? "drop-target" : "") : "",
    });
  });
  const selected = s.selected !== null ? s.order[s.selected] : null;
  const actions = [];
  if (g.phase === "discard" && g.to_move === s.view.seat) {
    if (selected !== null && moves.discard.has(selected)) {
      actions.push(button(withNodes(_("Discard {card}"), { card: cardText(s, selected) }), () => a.act(moves.discard.get(selected)),
        { cls: "primary", action: "discard", label: _("Discard {card}", { card: cardName(selected, s.view.rules.deck) }) }));
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
      // A phone has room for one button: it goes from one order to the next.
      button([h("span", { class: "icon", html: ICONS.sort }), { suit: _("Suit"), rank: _("Rank"), melds: _("Melds") }[s.sortBy] || _("Suit")],
        () => a.sortHand(s.sortBy === "suit" ? "rank" : s.sortBy === "rank" ? "melds" : "suit"),
        { cls: "small sort-cycle", action: "sort-cycle", title: _("Sort the hand"), label: _("Sort the hand") }),
      h("span", { class: "sort", role: "group", "aria-label": _("Sort the hand") },
        button(_("Suit"), () => a.sortHand("suit"), { cls: `small ${s.sortBy === "suit" ? "on" : ""}`, action: "sort-suit", title: _("Sort by suit") }),
        button(_("Rank"), () => a.sortHand("rank"), { cls: `small ${s.sortBy === "rank" ? "on" : ""}`, action: "sort-rank", title: _("Sort by rank") }),
        button(_("Melds"), () => a.sortHand("melds"), { cls: `small ${s.sortBy === "melds" ? "on" : ""}`, action: "sort-melds", title: _("Melds first") }))),
    h("div", { class: `hand n${handCards.length}` }, handCards),
    actions.length ? h("div", { class: "actions" }, actions) : null);
}

/** The closes the player may make, each with the cards it leaves loose and what it scores, the best first. */
function closeOptions(s, g, moves) {
  const selected = s.selected !== null ? s.order[s.selected] : null;
  const values = s.help && s.help.values;
  const options = [];
  for (const [c, list] of moves.close) {
    if (selected !== null && moves.close.has(selected) && c !== selected) continue;
    for (const text of list) {
      const melds = parseMelds(text);
      const loose = without(without(g.hand, [c]), melds.flat());
      const worth = points(values, loose);
      const chinchon = !loose.length && melds.length === 1 && new Set(melds[0].map((x) => x.slice(0, -1))).size > 1;
      options.push({ card: c, text, melds, loose, points: loose.length ? worth : s.view.rules.clean_close_bonus, chinchon });
    }
  }
  options.sort((x, y) => (x.points ?? 0) - (y.points ?? 0));
  return options;
}

function closePanel(s, a, g, moves) {
  const options = closeOptions(s, g, moves);
  return sheet(s, a, _("Close the deal"), [
    h("p", { class: "muted" }, _("Choose the card to put face down and the melds to show; the others may lay off onto them.")),
    h("ul", { class: "options" }, options.map((o, i) => h("li", { key: String(i) }, h("button", {
      type: "button", class: `option ${i === 0 ? "suggested" : ""}`, "data-action": "close-option", "data-points": o.points ?? "",
      onclick: () => a.act(o.text) },
    h("span", { class: "face-down" }, card(s, null, { size: "small" }), h("small", null, cardName(o.card, s.view.rules.deck))),
    o.melds.length ? o.melds.map((m, k) => h("span", { class: "meld-group", key: `m${k}` }, cards(s, m, "small"))) : h("span", { class: "muted" }, _("no melds")),
    h("span", { class: "close-score" },
      o.loose.length ? h("span", { class: "loose-cards", "data-loose": o.loose.join(" ") }, h("small", { class: "label" }, _("loose")), cards(s, o.loose, "tiny"))
        : h("span", { class: "badge ok" }, o.chinchon ? _("chinchón!") : _("every card matched")),
      o.points !== null && o.points !== undefined ? h("b", { class: "points" }, _("{points} pts", { points: o.points })) : null)))),
    ),
    button(_("Keep playing"), () => a.togglePanel(null), { cls: "", action: "keep-playing" }),
  ]);
}

function meldsOnTable(s, a, g, moves) {
  const mine = s.view.seat;
  const groups = new Map();
  g.table.forEach((m, i) => {
    const list = groups.get(m.owner) || [];
    list.push({ ...m, index: i });
    groups.set(m.owner, list);
  });
  const hint = s.suggest && moves.layoff.length ? suggestedLayoff(moves.layoff, s.help && s.help.values) : null;
  const rows = [];
  for (const seat of s.view.seats.map((x) => x.seat)) {
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
            targets.map((t) => {
              const suggested = hint !== null && hint.text === t.text;
              return button(["+ ", cardText(s, t.card)], () => a.act(t.text), {
                cls: `small primary ${suggested ? "suggested" : ""}`, action: "layoff",
                title: _("Lay off {card} here", { card: cardName(t.card, s.view.rules.deck) }),
                label: _("Lay off {card} here", { card: cardName(t.card, s.view.rules.deck) }) });
            }));
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
    melds.length ? melds.map((m, k) => h("span", { class: "meld-group", key: `m${k}` }, cards(s, m, "small"))) : h("span", null, _("Show no melds")),
    suggested ? h("span", { class: "badge ok" }, _("suggested")) : null));
  });
  return h("section", { class: "panel showdown-actions" },
    moves.show.length ? [h("h2", null, _("Show your melds")), h("ul", { class: "options" }, showOptions)] : null,
    moves.layoff.length ? h("p", { class: "muted" }, _("Lay off a loose card with the + buttons on the melds above.")) : null,
    h("div", { class: "row" },
      moves.layoff.length ? [
        button(_("Suggest"), () => a.toggleSuggest(), { cls: `${s.suggest ? "on" : ""}`, action: "suggest" }),
        button(_("Lay off all"), () => a.layoffAll(), { cls: "primary", action: "layoff-all" }),
      ] : null,
      moves.pass ? button(_("Pass (no more lay-offs)"), () => a.act("pass"), { cls: "primary", action: "pass" }) : null));
}

function scoreBars(s, scores, active) {
  const limit = s.view.rules.limit;
  const top = Math.max(limit * 1.15, ...scores.map((x) => x + 1));
  return h("ul", { class: "scores" }, s.view.seats.map((info) => {
    const seat = info.seat;
    const total = scores[seat];
    const pct = Math.max(0, Math.min(100, (total / top) * 100));
    const out = !active.includes(seat);
    return h("li", { key: String(seat), class: out ? "out" : "" },
      h("span", { class: `dot s${seat % 8}` }),
      h("span", { class: "name" }, seatName(s, seat), out ? " · " + _("out") : ""),
      h("span", { class: "bar", role: "img", "aria-label": _("{points} of {limit}", { points: total, limit }) },
        h("span", { class: "fill", style: { "inline-size": `${pct}%` } }),
        h("span", { class: "limit", style: { "inset-inline-start": `${(limit / top) * 100}%` }, title: _("limit {limit}", { limit }) })),
      h("span", { class: "total" }, String(total)));
  }));
}

/** A round step for an axis: 1, 2 or 5 times a power of ten, giving about four marks. */
function step(span) {
  const raw = span / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((k) => k * power).find((k) => k >= raw) || power * 10;
}

/** The totals after each deal, drawn with their axes, the limit named and a legend; any total, below zero too. */
export function chart(s) {
  const series = s.dealTotals;
  if (series.length < 2) return null;
  const limit = s.view.rules.limit;
  const values = series.flat();
  const low = Math.min(0, ...values);
  const high = Math.max(limit, ...values);
  const tick = step(high - low);
  const bottom = Math.floor(low / tick) * tick;
  const top = Math.ceil((high * 1.04) / tick) * tick;
  const w = 320, hgt = 150, left = 34, right = 8, above = 10, below = 22;
  const x = (i) => left + (i / (series.length - 1)) * (w - left - right);
  const y = (v) => above + ((top - v) / (top - bottom)) * (hgt - above - below);
  const marks = [];
  for (let v = bottom; v <= top + 1e-9; v += tick) marks.push(v);
  const deals = series.length - 1;
  const every = Math.max(1, Math.ceil(deals / 8));
  const svg = h("svg", { viewBox: `0 0 ${w} ${hgt}`, "aria-hidden": "true", class: "chart-svg" },
    marks.map((v) => h("g", { key: `y${v}`, class: "tick" },
      h("line", { x1: left, x2: w - right, y1: y(v).toFixed(1), y2: y(v).toFixed(1), class: v === 0 ? "zero" : "grid" }),
      h("text", { x: left - 4, y: (y(v) + 3.5).toFixed(1), "text-anchor": "end" }, String(v)))),
    series.map((_row, i) => (i % every === 0 || i === deals ? h("text", { key: `x${i}`, x: x(i).toFixed(1), y: hgt - 8, "text-anchor": "middle", class: "deal" }, String(i)) : null)),
    h("line", { x1: left, x2: left, y1: above, y2: hgt - below, class: "axis" }),
    h("line", { x1: left, x2: w - right, y1: y(limit).toFixed(1), y2: y(limit).toFixed(1), class: "limit-line" }),
    h("text", { x: w - right, y: (y(limit) - 3).toFixed(1), "text-anchor": "end", class: "limit-label" }, _("limit {limit}", { limit })),
    s.view.seats.map((info, seat) => h("polyline", { key: `l${seat}`, class: `line s${seat % 8}`, fill: "none", "stroke-width": "2",
      points: series.map((row, i) => `${x(i).toFixed(1)},${y(row[seat] || 0).toFixed(1)}`).join(" ") })));
  return h("figure", { class: "chart", role: "img", "aria-label": _("Totals over the deals") },
    h("div", { class: "chart-box", dir: "ltr" }, svg),
    h("figcaption", null,
      h("span", { class: "axis-name" }, _("Totals after each deal")),
      h("ul", { class: "legend" }, s.view.seats.map((info, seat) => h("li", { key: String(seat) },
        h("span", { class: `dot s${seat % 8}` }), seatName(s, seat))))));
}

function resultBody(s, result, scores, active) {
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
    scoreBars(s, scores, active),
    chart(s),
  ];
}

function resultPanel(s, a) {
  const r = s.result;
  return sheet(s, a, _("Deal {n}", { n: r.deal }), [
    resultBody(s, r.result, r.scores, r.active),
    h("div", { class: "row end" }, button(_("Continue"), () => a.dismissResult(), { cls: "primary", action: "continue" })),
  ], { cls: "result", state: r.state, onclose: () => a.dismissResult() });
}

function overPanel(s, a, g) {
  const winner = g.winner;
  const mine = s.view.seat;
  const title = winner === null ? _("The match is over.") : winner === mine ? _("You won the match!")
    : _("{name} won the match.", { name: seatName(s, winner) });
  return sheet(s, a, title, [
    h("div", { class: "row" },
      mine !== null ? button(_("Rematch"), () => a.rematch(), { cls: "primary big", action: "rematch" }) : null,
      mine !== null ? button(_("Analyse"), () => a.analyseRoom(s.view.room, mine), { action: "analyse-room",
        title: _("Every decision of yours rated by the search, in the replay") }) : null,
      button(_("Home"), () => a.goHome(), { action: "home" })),
    g.result ? [h("h3", null, _("The last deal")), resultBody(s, g.result, g.scores, g.active)] : [scoreBars(s, g.scores, g.active), chart(s)],
  ], { cls: "over", noClose: true, headProps: { "data-over": "1" } });
}

function reentryPanel(s, a, g, moves) {
  return sheet(s, a, _("You went over the limit."), [
    h("p", null, _("Re-enter the match with the highest total of those still playing?")),
    h("div", { class: "row" },
      moves.reenter.includes("reenter yes") ? button(_("Yes, re-enter"), () => a.act("reenter yes"), { cls: "primary", action: "reenter-yes" }) : null,
      moves.reenter.includes("reenter no") ? button(_("No"), () => a.act("reenter no"), { action: "reenter-no" }) : null),
    g.result ? [h("h3", null, _("The last deal")), resultBody(s, g.result, g.scores, g.active)] : null,
  ], { noClose: true, headProps: { "data-reentry": "1" } });
}

function timer(s) {
  const v = s.view;
  if (!v.turn_deadline) return null;
  const left = Math.max(0, Math.ceil(v.turn_deadline - Date.now() / 1000 - s.clockSkew));
  return h("span", { class: `timer ${left <= 10 ? "low" : ""}`, role: "timer", "aria-label": _("{n} s left", { n: left }) },
    h("span", { class: "icon", html: ICONS.clock }), String(left));
}

/** What the tips need to know of the table now. */
function tipFacts(s, g, moves) {
  const mine = s.view.seat;
  const myTurn = mine !== null && g.to_move === mine;
  const none = { draw: [], discard: new Map(), close: new Map(), show: [], layoff: [] };
  return {
    moves: myTurn ? moves : none,
    melds: g.arrangement ? g.arrangement.melds.length : 0,
    closeLimit: s.view.rules.close_limit,
    closer: seatName(s, g.closer),
    showdown: g.phase === "showdown" && g.closer !== mine,
  };
}

export function table(s, a) {
  const v = s.view;
  const g = v.game;
  const mine = v.seat;
  const moves = legal(g);
  const others = v.seats.filter((x) => x.seat !== mine);
  const over = g.match_over || v.status === "over";
  let front = null;
  // A re-entry question comes before everything: the match is not over while one is open (the deal is).
  if (moves.reenter.length) front = reentryPanel(s, a, g, moves);
  else if (over) front = overPanel(s, a, g);
  else if (s.panel === "result" && s.result) front = resultPanel(s, a);
  else if (s.panel === "close" && moves.close.size) front = closePanel(s, a, g, moves);
  else if (s.panel === "history") front = historyPanel(s, a, g);
  else if (s.panel === "chat") front = sheet(s, a, _("Chat"), chatBox(s, a, s.chat, mine === null ? _("Only players chat in a room") : null));
  else if (s.panel === "help") front = sheet(s, a, _("How to play"), howToPlay(s, s.help), { cls: "help" });
  else if (s.panel === "keys") front = sheet(s, a, _("Keys"), keysTable(), { cls: "keys-sheet" });
  const fixed = front !== null && (moves.reenter.length || over);
  const tip = mine !== null && g.active.includes(mine) && !front ? currentTip(s, tipFacts(s, g, moves)) : null;
  const playing = mine !== null && !over;
  const showdown = g.phase === "showdown" || Boolean(g.result);
  return h("main", { class: `table ${showdown ? "at-showdown" : ""}` },
    h("div", { class: "table-bar" },
      h("span", { class: "deal-no" }, _("Deal {n}", { n: g.deal_number })),
      h("span", { class: "limit-no" }, _("limit {limit}", { limit: v.rules.limit })),
      g.pot ? h("span", null, _("pot {pot}", { pot: g.pot })) : null,
      timer(s),
      h("span", { class: "grow" }),
      g.previous_result ? iconButton(ICONS.chart, _("Last deal"), () => a.togglePanel("result"), { cls: "small", action: "last-deal" }) : null,
      iconButton(ICONS.chat, s.unread ? _("Chat ({n})", { n: s.unread }) : _("Chat"), () => a.togglePanel("chat"), { cls: `small ${s.unread ? "unread" : ""}`, action: "chat" }),
      iconButton(ICONS.help, _("How to play"), () => a.togglePanel("help"), { cls: "small", action: "help" }),
      playing ? iconButton(ICONS.leave, _("Leave"), () => a.leave(true), { cls: "small danger", action: "leave" }) : null),
    // At a showdown the opponents' boxes keep their names only: each seat's row below shows its melds.
    h("section", { class: "opponents", "aria-label": _("Opponents") }, others.map((info) => opponent(s, a, g, info))),
    showdown ? meldsOnTable(s, a, g, moves) : piles(s, a, g, moves),
    h("p", { class: `status ${g.to_move === mine && mine !== null ? "mine" : ""}`, role: "status", "data-phase": g.phase,
      "data-state": String(v.state), "data-mine": g.to_move === mine && mine !== null ? "1" : "0" }, statusLine(s, g, moves)),
    // A tip takes the place of the last moves while it is shown: the hand below stays where it is on a small phone.
    tip ? tipBox(tip, a) : lastMoves(s, g),
    g.phase === "showdown" && g.to_move === mine ? showdownActions(s, a, g, moves) : null,
    mine === null ? h("p", { class: "muted" }, _("You are watching."))
      : !g.active.includes(mine) && !g.hand.length ? h("p", { class: "status" }, _("You are out of this match; the others play on."))
        : handArea(s, a, g, moves),
    h("div", { class: "mine-score" }, scoreBars(s, g.scores, g.active)),
    front ? h("div", { class: "backdrop", onclick: (e) => { if (e.target === e.currentTarget && !fixed) a.closePanel(); } }, front) : null);
}
