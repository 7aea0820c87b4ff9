// Small pieces every screen uses: cards (drawn, and named in text as the deck draws them), buttons, fields, the
// legal actions read into what the controls need.

import { h } from "./dom.js";
import { _, cardName } from "./i18n.js";
import { cardSvg, parseCard, rankLabel, suitIcon } from "./cards.js";

const MELD_COLOURS = ["m0", "m1", "m2", "m3"];

export function deckOf(s) {
  return s.view ? s.view.rules.deck : "spanish40";
}

/** One card: a face (text) or the back (null), as a button when onclick is given. */
export function card(s, text, opts = {}) {
  const deck = deckOf(s);
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

/** Cards side by side, left to right in every language. */
export function cards(s, list, size = "small") {
  return h("span", { class: "cards" }, list.map((c) => card(s, c, { size })));
}

/** A card named in a line of text as its deck draws it: the corner's rank and the suit's own small icon (the
 * Spanish deck's oros, copas, espadas and bastos), its full name for screen readers and as its title. */
export function cardText(s, text) {
  const deck = deckOf(s);
  const name = cardName(text, deck);
  const c = parseCard(text);
  if (c.joker) return h("span", { class: "ctext", title: name }, "🃏");
  return h("span", { class: `ctext ${deck === "french52" ? "french" : ""}`, role: "img", "aria-label": name, title: name, "data-card": text },
    rankLabel(c.rank, deck), h("span", { class: "suit", html: suitIcon(c.suit, { deck, fourColour: s.fourColour }) }));
}

/** A line of the rules' words with its cards and suits (♦, A♦) drawn as the deck draws them. */
export function withCards(s, text) {
  const out = [];
  let last = 0;
  const re = /(?:10|[2-9AJQK])?[♦♥♠♣]/g;
  let m;
  while ((m = re.exec(text)) !== null) {
    out.push(text.slice(last, m.index));
    out.push(m[0].length > 1 ? cardText(s, m[0])
      : h("span", { class: "ctext", "data-suit": m[0] }, h("span", { class: "suit", html: suitIcon(m[0], { deck: deckOf(s), fourColour: s.fourColour }) })));
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}

/** A meld named in text: its cards as cardText, kept left to right inside a right-to-left line. */
export function meldText(s, list) {
  return h("bdi", { class: "meld-text", dir: "ltr" }, list.map((c) => cardText(s, c)));
}

/** Melds named in text, one after the other. */
export function meldsText(s, melds) {
  return h("span", { class: "melds-text" }, melds.map((m) => meldText(s, m)));
}

/** The plain-text names of melds, for titles: "3 of coins, 4 of coins, 5 of coins; king of cups, …". */
export function meldsNames(s, melds) {
  return melds.map((m) => m.map((c) => cardName(c, deckOf(s))).join(", ")).join("; ");
}

export function button(label, onclick, opts = {}) {
  return h("button", { type: "button", class: opts.cls || "", onclick, disabled: opts.disabled, "data-action": opts.action, title: opts.title,
    "aria-label": opts.label }, label);
}

/** A button that shows an icon, its words beside it (hidden on a narrow screen, where they are its label). */
export function iconButton(icon, label, onclick, opts = {}) {
  return h("button", { type: "button", class: `icon-button ${opts.cls || ""}`, onclick, "data-action": opts.action, title: label,
    "aria-label": label, "aria-pressed": opts.pressed === undefined ? null : opts.pressed ? "true" : "false" },
  h("span", { class: "icon", html: icon }), h("span", { class: "words" }, opts.words || label));
}

export function field(label, control, error) {
  return h("label", { class: `field ${error ? "invalid" : ""}` }, h("span", null, label), control,
    error ? h("span", { class: "field-error", role: "alert" }, error) : null);
}

export function select(value, options, onchange, name, label) {
  return h("select", { value: String(value), onchange: (e) => onchange(e.target.value), name, "aria-label": label },
    options.map(([v, text]) => h("option", { value: String(v), selected: String(v) === String(value) }, text)));
}

/** A sheet over the page (a dialog): its title, a ✕ unless it must be answered, and its body. */
export function sheet(s, a, title, body, opts = {}) {
  return h("div", { class: `sheet ${opts.cls || ""}`, role: "dialog", "aria-label": title, "data-state": opts.state },
    h("div", { class: "sheet-head" }, h("h2", opts.headProps || null, title),
      opts.noClose ? null : button("✕", () => (opts.onclose || (() => a.togglePanel(null)))(), { cls: "small", title: _("Close"), label: _("Close") })),
    body);
}

export function seatName(s, seat) {
  if (seat === null || seat === undefined || !s.view) return "";
  const info = s.view.seats[seat];
  if (!info) return "?";
  if (info.name) return info.name;
  return info.kind === "bot" ? _("Bot {n}", { n: seat + 1 }) : _("Seat {n}", { n: seat + 1 });
}

/** The melds written in an action's text: "close 7♥ [3♥ 4♥ 5♥] [7♦ 7♠ 7♣]" → [["3♥", "4♥", "5♥"], ["7♦", "7♠", "7♣"]]. */
export function parseMelds(text) {
  const out = [];
  const re = /\[([^\]]*)\]/g;
  let m;
  while ((m = re.exec(text)) !== null) out.push(m[1].trim().split(/\s+/).filter(Boolean));
  return out;
}

/** The seat's legal actions (the view's texts) sorted into what the controls need. */
export function legal(g) {
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

/** What is left of a hand once some cards are taken out (each card taken once: two decks may hold it twice). */
export function without(hand, taken) {
  const left = [...hand];
  for (const c of taken) {
    const i = left.indexOf(c);
    if (i >= 0) left.splice(i, 1);
  }
  return left;
}

/** The points of loose cards by the room's values (the server's, with "How to play"); null before they come. */
export function points(values, list) {
  if (!values) return null;
  let total = 0;
  for (const c of list) {
    if (!(c in values)) return null;
    total += values[c];
  }
  return total;
}

/** The lay-off the page suggests among the legal ones: the loose card worth most (each lay-off takes its points
 * away), the first of the engine's order on a tie. */
export function suggestedLayoff(layoffs, values) {
  let best = null;
  for (const l of layoffs) {
    const worth = values && l.card in values ? values[l.card] : 0;
    if (best === null || worth > best.worth) best = { ...l, worth };
  }
  return best;
}

export const ICONS = {
  eye: `<svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true"><path d="M1 12s4-7 11-7 11 7 11 7-4 7-11 7S1 12 1 12z" fill="none" stroke="currentColor" stroke-width="2"/><circle cx="12" cy="12" r="3.2" fill="currentColor"/></svg>`,
  logo: `<svg viewBox="0 0 16 20" width="16" height="20" aria-hidden="true"><rect x="1" y="1" width="14" height="18" rx="2.5" fill="#9b2226" stroke="#e9c46a"/><circle cx="8" cy="10" r="3.4" fill="#e9c46a"/></svg>`,
  clock: `<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><circle cx="12" cy="13" r="9" fill="none" stroke="currentColor" stroke-width="2.2"/><path d="M12 8v5l3 2M9 2h6" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/></svg>`,
  back: `<svg viewBox="0 0 12 16" width="11" height="15" aria-hidden="true"><rect x="0.5" y="0.5" width="11" height="15" rx="2" fill="#9b2226" stroke="#fff"/><circle cx="6" cy="8" r="2" fill="#e9c46a"/></svg>`,
  help: `<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><circle cx="12" cy="12" r="10" fill="none" stroke="currentColor" stroke-width="2"/><path d="M9.2 9.3a2.9 2.9 0 1 1 4.1 2.6c-.8.4-1.3 1-1.3 1.9v.6" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/><circle cx="12" cy="17.3" r="1.3" fill="currentColor"/></svg>`,
  gear: `<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><path d="M12 8.5a3.5 3.5 0 1 0 0 7 3.5 3.5 0 0 0 0-7z" fill="none" stroke="currentColor" stroke-width="2"/><path d="M19.4 13.5l1.9 1.1-2 3.5-2.1-.8a7.6 7.6 0 0 1-2 1.2L14.8 21h-4l-.4-2.5a7.6 7.6 0 0 1-2-1.2l-2.1.8-2-3.5 1.9-1.1a7.4 7.4 0 0 1 0-2.9L4.3 9.5l2-3.5 2.1.8a7.6 7.6 0 0 1 2-1.2L10.8 3h4l.4 2.6a7.6 7.6 0 0 1 2 1.2l2.1-.8 2 3.5-1.9 1.1a7.4 7.4 0 0 1 0 2.9z" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linejoin="round"/></svg>`,
  chart: `<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><path d="M4 20V4M4 20h16" stroke="currentColor" stroke-width="2" fill="none" stroke-linecap="round"/><path d="M7 15l4-5 3 3 5-7" stroke="currentColor" stroke-width="2" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>`,
  sort: `<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path d="M7 4v16M3.5 16.5 7 20l3.5-3.5M17 20V4M13.5 7.5 17 4l3.5 3.5" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/></svg>`,
  chat: `<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><path d="M4 5h16v11H9l-5 4z" fill="none" stroke="currentColor" stroke-width="2" stroke-linejoin="round"/></svg>`,
  leave: `<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><path d="M14 4H5v16h9M10 12h10M16 8l4 4-4 4" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/></svg>`,
};

export { MELD_COLOURS };
