// Teaching: "How to play" (the engine's rules text, served per language and per room's rules), the keys, and the
// tips of a first match, one rule at a time as it comes up.

import { h } from "./dom.js";
import { _ } from "./i18n.js";
import { card, button, withCards } from "./ui.js";

/** The keyboard shortcuts: the terminal game's keys. */
export function shortcuts() {
  return [
    ["1 … 8", _("Select a card of your hand")],
    ["← →", _("Move the selection along the hand")],
    ["Shift + ← →", _("Move the selected card in the hand")],
    ["Enter", _("Discard the selected card")],
    ["s", _("Draw from the stock")],
    ["d", _("Take the top card of the discard pile")],
    ["c", _("Close the deal")],
    ["o", _("Sort the hand: by suit, by rank, melds first")],
    ["h", _("The discards and the moves")],
    ["?", _("These keys")],
    ["Esc", _("Close the open panel")],
  ];
}

export function keysTable() {
  return h("table", { class: "keys" }, h("tbody", null, shortcuts().map(([keys, what]) =>
    h("tr", { key: keys }, h("th", { scope: "row" }, h("kbd", { dir: "ltr" }, keys)), h("td", null, what)))));
}

/** The cards of one suit with their values, then the jokers: what a loose card counts in these rules. */
function valueStrip(s, info) {
  const rs = { ...s, view: { rules: info.rules } };
  const entries = Object.entries(info.values);
  const suit = entries.length ? entries[0][0].slice(-1) : "♦";
  const shown = entries.filter(([c]) => c.slice(-1) === suit || c === "🃏");
  return h("ul", { class: "values", dir: "ltr" }, shown.map(([c, value]) => h("li", { key: c },
    card(rs, c, { size: "small" }), h("b", { class: "value" }, String(value)))));
}

/** How to play, for a room's rules or a preset's: the goal, a turn, the values, the limits, the rules in full, the keys. */
export function howToPlay(s, info) {
  if (!info) return h("p", { class: "muted" }, _("Loading…"));
  if (info.error) return h("p", { role: "alert" }, info.error);
  const r = info.rules;
  const rulesState = { ...s, view: { rules: r } };
  return h("div", { class: "how" },
    h("p", { class: "lead" }, _("Chinchón is a rummy game: arrange your cards in melds so that the cards left loose count as few points as possible.")),
    h("h3", null, _("Your turn")),
    h("ol", { class: "steps" },
      h("li", null, _("Take a card: the top of the stock (face down) or the top of the discard pile (face up).")),
      h("li", null, _("Give a card back: discard one card face up.")),
      h("li", null, _("Or close, instead of discarding, when your loose cards add up to {limit} points or less.", { limit: r.close_limit }))),
    h("h3", null, _("Melds")),
    h("p", null, _("A set is three or more cards of one rank; a run is three or more cards of one suit in a row. A card counts nothing while it is in a meld.")),
    h("h3", null, _("What a loose card counts")),
    valueStrip(s, info),
    h("ul", { class: "limits" },
      h("li", { "data-close-limit": String(r.close_limit) }, _("You may close with {limit} loose points or less.", { limit: r.close_limit })),
      h("li", { "data-limit": String(r.limit) }, _("After each deal your loose points add to your total: above {limit} points you are out. The last player in wins.", { limit: r.limit }))),
    h("h3", null, _("After a close")),
    h("p", null, _("The closer shows their melds; the others show theirs and lay off loose cards on the melds on the table, so that those cards no longer count.")),
    h("h3", null, info.title),
    info.paragraphs.map((text, i) => h("p", { key: `p${i}`, class: "rule" }, withCards(rulesState, text))),
    h("h3", null, _("Keys")),
    keysTable());
}

// -- tips of a first match ------------------------------------------------------------------------

/** The tips, in the order they win when several apply: each says one rule, when it comes up in the player's game. */
const TIPS = [
  {
    key: "showdown",
    when: (t) => t.showdown,
    text: (t) => _("{name} closed: the showdown. Each player shows their melds; the cards left loose count against them.", { name: t.closer }),
  },
  {
    key: "layoff",
    when: (t) => t.moves.layoff.length > 0,
    text: () => _("Lay off: a loose card that fits a meld on the table (a set's missing suit, the next card of a run) no longer counts. Use + on the meld, or Lay off all."),
  },
  {
    key: "close",
    when: (t) => t.moves.close.size > 0,
    text: (t) => _("You can close: with this card out, your loose cards add up to {limit} points or less. Closing ends the deal; the others count what they hold loose.", { limit: t.closeLimit }),
  },
  {
    key: "draw",
    when: (t) => t.moves.draw.length > 0,
    text: () => _("Your turn starts with a card: tap the stock (face down) or the discard pile (face up)."),
  },
  {
    key: "meld",
    when: (t) => t.melds > 0,
    text: () => _("A coloured line under cards marks a meld: three or more of one rank, or three or more of one suit in a row. Cards in melds count nothing."),
  },
  {
    key: "discard",
    when: (t) => t.moves.discard.size > 0,
    text: (t) => _("Now give a card back: tap the card you need least, then Discard. Loose points count against you; high cards are the costly ones. You may close once they are {limit} or less.", { limit: t.closeLimit }),
  },
];

/** The tip to show now, if any: the first not yet seen whose rule is in play. */
export function currentTip(s, facts) {
  if (s.tipsOff) return null;
  for (const tip of TIPS) {
    if (!s.tipsSeen.includes(tip.key) && tip.when(facts)) return { key: tip.key, text: tip.text(facts) };
  }
  return null;
}

export function tipBox(tip, a) {
  return h("aside", { class: "tip", role: "note", "data-tip": tip.key, key: "tip" },
    h("p", null, tip.text, " ",
      button(_("Got it"), () => a.seeTip(tip.key), { cls: "small tip-seen", action: "tip-seen" }),
      button(_("No more tips"), () => a.stopTips(), { cls: "link", action: "tips-off" })));
}
