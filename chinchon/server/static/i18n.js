// The page's messages, from the project's gettext catalogs (served by /api/i18n/{lang}).

export const LANGUAGES = [
  ["en", "English"], ["es", "Español"], ["pt", "Português"], ["fr", "Français"], ["pl", "Polski"], ["ar", "العربية"],
];

let table = {};
let current = "en";
let direction = "ltr";

function fill(text, params) {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, key) => (key in params ? String(params[key]) : whole));
}

/** A message in the page's language, its {placeholders} filled in from params. */
export function _(msgid, params) {
  return fill(table[msgid] || msgid, params);
}

/** A message in a context (the same contexts as the Python catalogs' pgettext). */
export function pgettext(context, msgid, params) {
  return fill(table[context + "\u0004" + msgid] || msgid, params);
}

/** A message already translated, its {placeholders} filled with params that may be nodes: a list of strings and
 * nodes, for a sentence that holds cards drawn as icons. */
export function withNodes(text, params) {
  const out = [];
  let last = 0;
  text.replace(/\{(\w+)\}/g, (whole, key, at) => {
    out.push(text.slice(last, at), key in params ? params[key] : whole);
    last = at + whole.length;
    return whole;
  });
  out.push(text.slice(last));
  return out.filter((part) => part !== "");
}

export function language() {
  return current;
}

/** Give the document the loaded language and its direction, in the same frame as its words. */
export function applyLanguage() {
  const root = document.documentElement;
  if (root.lang !== current) root.lang = current;
  if (root.dir !== direction) root.dir = direction;
}

/** The first of the browser's languages that has a catalog, else English. */
export function browserLanguage() {
  const wanted = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "en"];
  for (const tag of wanted) {
    const code = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.some(([known]) => known === code)) return code;
  }
  return "en";
}

/** Load a language's messages; the next draw lays the page out in them (see applyLanguage). */
export async function loadLanguage(code) {
  const response = await fetch(`/api/i18n/${encodeURIComponent(code)}`);
  if (!response.ok) throw new Error(`messages: HTTP ${response.status}`);
  table = await response.json();
  current = table._lang || "en";
  direction = table._dir || "ltr";
  return current;
}

function rankName(rank, deck) {
  if (deck === "french52") {
    const names = {
      A: pgettext("French deck", "ace"), J: pgettext("French deck", "jack"),
      Q: pgettext("French deck", "queen"), K: pgettext("French deck", "king"),
    };
    return names[rank] || rank;
  }
  const names = {
    A: pgettext("Spanish deck", "ace"), J: pgettext("Spanish deck", "jack"),
    Q: pgettext("Spanish deck", "knight"), K: pgettext("Spanish deck", "king"),
  };
  return names[rank] || rank;
}

/** A card's name for screen readers and titles: "7 of coins", "sota de copas", "joker". */
export function cardName(text, deck) {
  if (!text || text === "🃏") return pgettext("card", "joker");
  const rank = rankName(text.slice(0, -1), deck);
  const suit = text.slice(-1);
  if (deck === "french52") {
    const patterns = {
      "♦": pgettext("French deck", "{rank} of diamonds"), "♥": pgettext("French deck", "{rank} of hearts"),
      "♠": pgettext("French deck", "{rank} of spades"), "♣": pgettext("French deck", "{rank} of clubs"),
    };
    return fill(patterns[suit] || text, { rank });
  }
  const patterns = {
    "♦": pgettext("Spanish deck", "{rank} of coins"), "♥": pgettext("Spanish deck", "{rank} of cups"),
    "♠": pgettext("Spanish deck", "{rank} of swords"), "♣": pgettext("Spanish deck", "{rank} of clubs"),
  };
  return fill(patterns[suit] || text, { rank });
}
