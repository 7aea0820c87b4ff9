// Cards drawn as SVG in code: Spanish suits (oros, copas, espadas, bastos) with their
// figures (sota, caballo, rey), French suits for the 52-card deck, jokers and a back.
// Every design here is drawn from simple shapes for this project.

const SUITS = { "♦": "oros", "♥": "copas", "♠": "espadas", "♣": "bastos" };
export const SUIT_ORDER = ["♦", "♥", "♠", "♣"];
export const RANK_ORDER = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];

const NATURAL = { oros: "#c58b00", copas: "#c62828", espadas: "#36597f", bastos: "#7a4b22" };
const FOUR = { oros: "#b7791f", copas: "#d32f2f", espadas: "#1565c0", bastos: "#2e7d32" };
const TINT = { oros: "#fff4cf", copas: "#ffe3e0", espadas: "#e1ecff", bastos: "#e2f4e0" };

/** A card's text ("7♦", "10♠", "🃏") as {rank, suit, joker}. */
export function parseCard(text) {
  if (!text || text === "🃏") return { joker: true, rank: null, suit: null };
  return { joker: false, rank: text.slice(0, -1), suit: text.slice(-1) };
}

/** A sort key: suit then rank, or rank then suit; jokers last. */
export function cardKey(text, by) {
  const c = parseCard(text);
  if (c.joker) return 1000;
  const s = SUIT_ORDER.indexOf(c.suit), r = RANK_ORDER.indexOf(c.rank);
  return by === "rank" ? r * 10 + s : s * 100 + r;
}

// -- suit pips, each centred on 0,0 and about 20 units across -----------------------------

function oros(col) {
  return `<circle r="9.2" fill="${col}" stroke="#5c3d00" stroke-width="1"/>` +
    `<circle r="6" fill="none" stroke="#fff3c4" stroke-width="1.2"/>` +
    `<circle r="2.4" fill="#fff3c4"/>`;
}
function copas(col) {
  return `<path d="M-8,-8.5 H8 C8,-1 4.5,2.2 1.6,2.8 V6 H5.2 V9 H-5.2 V6 H-1.6 V2.8 C-4.5,2.2 -8,-1 -8,-8.5 Z" ` +
    `fill="${col}" stroke="#4a0d0d" stroke-width="0.8"/>` +
    `<ellipse cx="0" cy="-8.5" rx="8" ry="1.6" fill="#ffd9d4" stroke="#4a0d0d" stroke-width="0.6"/>`;
}
function espadas(col) {
  return `<path d="M0,-10.5 L2.3,-7 L2.3,4.5 L-2.3,4.5 L-2.3,-7 Z" fill="#dfe7f1" stroke="${col}" stroke-width="1.1"/>` +
    `<path d="M-6.5,4.3 H6.5 V6.6 H-6.5 Z" fill="${col}"/>` +
    `<rect x="-1.3" y="6.6" width="2.6" height="3" fill="${col}"/>` +
    `<circle cy="10.6" r="1.7" fill="${col}"/>`;
}
function bastos(col) {
  return `<path d="M-1.6,10 L-2.6,-4 C-3.4,-10 4.4,-11.5 3.6,-4.5 L1.8,10 Z" fill="${col}" stroke="#3a220c" stroke-width="0.8"/>` +
    `<circle cx="-2.9" cy="-2" r="1.3" fill="#3a220c"/><circle cx="3.1" cy="1" r="1.2" fill="#3a220c"/>` +
    `<circle cx="-2" cy="4.5" r="1.1" fill="#3a220c"/>` +
    `<ellipse cx="-5" cy="-6" rx="2.6" ry="1.2" fill="#4f8f3a" transform="rotate(-30 -5 -6)"/>`;
}
function french(suit, col) {
  const d = {
    "♦": "M0,-10 L7.5,0 L0,10 L-7.5,0 Z",
    "♥": "M0,9 C-4,5 -9,1 -9,-4 C-9,-8.5 -3,-10 0,-5.5 C3,-10 9,-8.5 9,-4 C9,1 4,5 0,9 Z",
    "♠": "M0,-10 C4,-5 9,-2 9,2.5 C9,6.5 4,7.5 1.2,5 L2.6,10 H-2.6 L-1.2,5 C-4,7.5 -9,6.5 -9,2.5 C-9,-2 -4,-5 0,-10 Z",
  }[suit];
  if (suit === "♣") {
    return `<g fill="${col}"><circle cy="-4.8" r="4.4"/><circle cx="-4.8" cy="2" r="4.4"/><circle cx="4.8" cy="2" r="4.4"/>` +
      `<path d="M-1.2,1 L-2.8,10 H2.8 L1.2,1 Z"/></g>`;
  }
  return `<path d="${d}" fill="${col}"/>`;
}

function pip(suit, col, deck) {
  if (deck === "french52") return french(suit, col);
  return { oros, copas, espadas, bastos }[SUITS[suit]](col);
}

// Where the pips of a number card go, in a 36 x 50 box centred on the card.
const LAYOUTS = {
  1: [[0, 0]],
  2: [[0, -16], [0, 16]],
  3: [[0, -18], [0, 0], [0, 18]],
  4: [[-10, -14], [10, -14], [-10, 14], [10, 14]],
  5: [[-10, -16], [10, -16], [0, 0], [-10, 16], [10, 16]],
  6: [[-10, -18], [10, -18], [-10, 0], [10, 0], [-10, 18], [10, 18]],
  7: [[-10, -19], [10, -19], [0, -9.5], [-10, 0], [10, 0], [-10, 19], [10, 19]],
  8: [[-10, -20], [10, -20], [-10, -6.7], [10, -6.7], [-10, 6.7], [10, 6.7], [-10, 20], [10, 20]],
  9: [[-10, -20], [10, -20], [-10, -6.7], [10, -6.7], [0, 0], [-10, 6.7], [10, 6.7], [-10, 20], [10, 20]],
  10: [[-10, -21], [10, -21], [0, -13], [-10, -5], [10, -5], [-10, 5], [10, 5], [0, 13], [-10, 21], [10, 21]],
};

// The figures: a page (sota) standing, a horse's head (caballo), a crowned king (rey).
function figure(rank, col, suit, deck) {
  const skin = "#f4d2b0", ink = "#2b2118";
  const held = `<g transform="translate(12 -2) scale(0.55)">${pip(suit, col, deck)}</g>`;
  if (rank === "J") {
    return `<g stroke="${ink}" stroke-width="0.8">` +
      `<path d="M-9,-17 Q0,-26 9,-17 L7,-15 H-7 Z" fill="${col}"/>` +
      `<circle cy="-10" r="5.5" fill="${skin}"/>` +
      `<path d="M-8,24 L-6,-3 Q0,-6 6,-3 L8,24 Z" fill="${col}"/>` +
      `<path d="M-6,-3 Q0,2 6,-3" fill="none"/>` +
      `<rect x="-6" y="8" width="12" height="2.4" fill="#f7e8b0"/></g>` + held;
  }
  if (rank === "Q") {
    return `<g stroke="${ink}" stroke-width="0.8">` +
      `<path d="M-10,24 L-8,6 C-12,0 -11,-12 -4,-18 L-2,-24 L1,-18 C7,-17 12,-10 11,-3 L7,-1 C5,-4 3,-4 1,-2 L3,24 Z" fill="#d9c3a0"/>` +
      `<path d="M-4,-18 C-7,-8 -9,0 -8,6" fill="none" stroke="${col}" stroke-width="3"/>` +
      `<circle cx="2" cy="-11" r="1.3" fill="${ink}"/>` +
      `<path d="M-8,10 H3" stroke="${col}" stroke-width="2.4"/></g>` + held;
  }
  return `<g stroke="${ink}" stroke-width="0.8">` +
    `<path d="M-7,-16 L-7,-24 L-3.5,-19 L0,-25 L3.5,-19 L7,-24 L7,-16 Z" fill="#f2c230"/>` +
    `<circle cy="-10" r="5.5" fill="${skin}"/>` +
    `<path d="M-4,-6 Q0,0 4,-6" fill="#e8e0d0"/>` +
    `<path d="M-10,24 L-7,-3 Q0,-7 7,-3 L10,24 Z" fill="${col}"/>` +
    `<path d="M-2,-3 V24 M2,-3 V24" stroke="#f2c230" stroke-width="1.2"/></g>` + held;
}

// The Spanish frame ("pinta"): breaks in the inner frame tell the suit even from a corner.
function pinta(suitName, col) {
  const breaks = { oros: 0, copas: 1, espadas: 2, bastos: 3 }[suitName] || 0;
  let out = `<rect x="3.5" y="3.5" width="53" height="83" rx="3" fill="none" stroke="${col}" stroke-width="1"/>`;
  for (let i = 0; i < breaks; i++) {
    const x = 22 + i * 6;
    out += `<rect x="${x}" y="2" width="3" height="3" fill="var(--card-bg, #fffdf6)"/>` +
      `<rect x="${x}" y="85" width="3" height="3" fill="var(--card-bg, #fffdf6)"/>`;
  }
  return out;
}

const FIGURE_LETTER = { J: "S", Q: "C", K: "R" };

function face(c, opts) {
  const suitName = SUITS[c.suit];
  const palette = opts.fourColour ? FOUR : NATURAL;
  const col = palette[suitName];
  const bg = opts.fourColour ? TINT[suitName] : "#fffdf6";
  const ink = opts.fourColour ? col : "#1d1d1d";
  const spanish = opts.deck !== "french52";
  const label = spanish && FIGURE_LETTER[c.rank] ? FIGURE_LETTER[c.rank] : c.rank;
  let centre;
  if (["J", "Q", "K"].includes(c.rank)) {
    centre = `<g transform="translate(30 47)">${figure(c.rank, col, c.suit, opts.deck)}</g>`;
  } else {
    const n = c.rank === "A" ? 1 : Number(c.rank);
    const scale = n === 1 ? 1.45 : n <= 3 ? 0.8 : n <= 6 ? 0.72 : 0.6;
    centre = (LAYOUTS[n] || LAYOUTS[1]).map(([x, y]) =>
      `<g transform="translate(${30 + x} ${46 + y}) scale(${scale})">${pip(c.suit, col, opts.deck)}</g>`).join("");
  }
  const index = `<text x="3" y="16" font-size="${label.length > 1 ? 14 : 17}" font-weight="700" ` +
    `font-family="system-ui, sans-serif" fill="${ink}">${label}</text>`;
  return `<rect x="0.5" y="0.5" width="59" height="89" rx="5" fill="${bg}" stroke="#8d8a80"/>` +
    (spanish ? pinta(suitName, col).replaceAll("var(--card-bg, #fffdf6)", bg) : "") +
    `<g>${index}<g transform="translate(9 24) scale(0.42)">${pip(c.suit, col, opts.deck)}</g></g>` +
    `<g transform="rotate(180 30 45)">${index}</g>` +
    centre;
}

function joker() {
  return `<rect x="0.5" y="0.5" width="59" height="89" rx="5" fill="#fbf7ff" stroke="#8d8a80"/>` +
    `<text x="4" y="16" font-size="13" font-weight="700" font-family="system-ui, sans-serif" fill="#6a1b9a">★</text>` +
    `<g transform="translate(30 46)" stroke="#2b2118" stroke-width="0.8">` +
    `<path d="M-14,-2 C-16,-14 -10,-22 -4,-20 L0,-6 L4,-20 C10,-22 16,-14 14,-2 Z" fill="#8e24aa"/>` +
    `<path d="M0,-6 L0,-24" stroke="#8e24aa" stroke-width="3"/>` +
    `<circle cx="-14" cy="-2" r="2.4" fill="#fdd835"/><circle cx="14" cy="-2" r="2.4" fill="#fdd835"/>` +
    `<circle cx="0" cy="-25" r="2.4" fill="#fdd835"/>` +
    `<circle cy="5" r="7" fill="#f4d2b0"/><path d="M-4,7 Q0,11 4,7" fill="none"/>` +
    `<path d="M-11,26 L-8,12 H8 L11,26 Z" fill="#43a047"/></g>`;
}

function back() {
  let lattice = "";
  for (let i = -90; i <= 90; i += 9) {
    lattice += `<path d="M${i},0 L${i + 90},90 M${i + 90},0 L${i},90" stroke="#f3c9c2" stroke-width="0.7" opacity="0.55"/>`;
  }
  return `<rect x="0.5" y="0.5" width="59" height="89" rx="5" fill="#fffdf6" stroke="#8d8a80"/>` +
    `<svg x="4" y="4" width="52" height="82" viewBox="0 0 52 82"><rect width="52" height="82" rx="3" fill="#9b2226"/>${lattice}</svg>` +
    `<g transform="translate(30 45)"><circle r="12" fill="#fffdf6" stroke="#e9c46a" stroke-width="2"/>` +
    `<path d="M0,-8 L2.4,-2.4 L8,0 L2.4,2.4 L0,8 L-2.4,2.4 L-8,0 L-2.4,-2.4 Z" fill="#9b2226"/></g>`;
}

const cache = new Map();

/** A card as an SVG string: a face ("7♦", "🃏") or the back (null); opts {fourColour, deck}. */
export function cardSvg(text, opts = {}) {
  const key = `${text}|${opts.fourColour ? 1 : 0}|${opts.deck || ""}`;
  let svg = cache.get(key);
  if (svg === undefined) {
    const c = parseCard(text);
    const body = text === null ? back() : c.joker ? joker() : face(c, opts);
    // Left to right in every language: in a right-to-left page the corner indices would run off the card.
    svg = `<svg viewBox="0 0 60 90" xmlns="http://www.w3.org/2000/svg" direction="ltr" aria-hidden="true" focusable="false">${body}</svg>`;
    cache.set(key, svg);
  }
  return svg;
}

const icons = new Map();

/** A suit's small icon for text (an SVG string about 1em across): the deck's own pip, oros to bastos or ♦ to ♣. */
export function suitIcon(suit, opts = {}) {
  const key = `${suit}|${opts.fourColour ? 1 : 0}|${opts.deck || ""}`;
  let svg = icons.get(key);
  if (svg === undefined) {
    const french52 = opts.deck === "french52";
    const name = SUITS[suit];
    const col = french52 ? (suit === "♦" || suit === "♥" ? "#c62828" : "#1d1d1d") : (opts.fourColour ? FOUR : NATURAL)[name];
    svg = `<svg viewBox="-11 -11 22 22" class="pip" aria-hidden="true" focusable="false">${pip(suit, col, opts.deck)}</svg>`;
    icons.set(key, svg);
  }
  return svg;
}

/** The letter a card's corner shows for its rank: S, C and R for the Spanish figures. */
export function rankLabel(rank, deck) {
  return deck !== "french52" && FIGURE_LETTER[rank] ? FIGURE_LETTER[rank] : rank;
}
