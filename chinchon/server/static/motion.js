// Cards that move: the deal, a draw from the stock or the pile, a discard, melds going down. Driven by the events
// the table just showed (protocol version 2), played after the page is drawn (FLIP: where a card was, where it is,
// the move between played backwards with the Web Animations API), short, and none at all with reduced motion.
// Nothing here changes the page's state: an animation ends where the card already is.

import { cardSvg } from "./cards.js";

export const DURATION = 240;
/** The id of this module's animations (`document.getAnimations()` holds the page's CSS ones too). */
export const ID = "motion";
const EASING = "cubic-bezier(0.2, 0.7, 0.3, 1)";
const STAGGER = 15;

let waiting = null; // {events, seat, rects}: what was shown since the last drawing, and where things were before it

function reduced() {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

function rectOf(el) {
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return r.width || r.height ? r : null;
}

/** Where the things that cards move between are on the page now. */
function snapshot(root) {
  const cards = new Map();
  for (const el of root.querySelectorAll(".hand [data-card], .melds [data-card]")) {
    const r = rectOf(el);
    if (r && el.dataset.card !== "back") cards.set(el.dataset.card, r);
  }
  const seats = new Map();
  for (const el of root.querySelectorAll(".opponent[data-seat]")) seats.set(Number(el.dataset.seat), rectOf(el));
  const pileTop = root.querySelector("[data-action=draw-discard] .card");
  return {
    cards,
    seats,
    stock: rectOf(root.querySelector("[data-action=draw-stock] .card")),
    pile: rectOf(pileTop),
    hand: rectOf(root.querySelector(".hand")),
  };
}

/** The events of a moment about to be shown (the page still shows the one before), for the next drawing; `look`
 * draws the cards that cross the table as the page does (`deck`, `fourColour`). */
export function note(messages, view, look = {}) {
  if (reduced()) return;
  const root = document.getElementById("app");
  if (!root) return;
  const events = [];
  for (const m of messages) events.push(m.event, ...m.private);
  if (waiting) {
    waiting.events.push(...events);
    return;
  }
  waiting = { events, seat: view ? view.seat : null, look, rects: snapshot(root) };
}

/** Move an element from where `from` is to where it is drawn now. */
function fly(el, from, delay = 0) {
  const to = rectOf(el);
  if (!to || !from) return;
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  const scale = from.width / to.width || 1;
  if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
  el.animate([{ transform: `translate(${dx}px, ${dy}px) scale(${scale})` }, { transform: "none" }],
    { id: ID, duration: DURATION, easing: EASING, delay, fill: "backwards" });
}

/** A card drawn over the page for the length of a move (another player's cards, that the page draws nowhere). */
function ghost(text, from, to, look) {
  if (!from || !to) return;
  const el = document.createElement("span");
  el.className = "card ghost";
  el.setAttribute("aria-hidden", "true");
  el.innerHTML = cardSvg(text, look);
  const width = Math.min(from.width, 60);
  const height = from.height * (width / from.width);
  const left = from.left + (from.width - width) / 2;
  const top = from.top + (from.height - height) / 2;
  Object.assign(el.style, { left: `${left}px`, top: `${top}px`, width: `${width}px`, height: `${height}px` });
  document.body.appendChild(el);
  const dx = to.left + to.width / 2 - (from.left + from.width / 2);
  const dy = to.top + to.height / 2 - (from.top + from.height / 2);
  const frames = [
    { transform: "none", opacity: 1 },
    { transform: `translate(${dx}px, ${dy}px) scale(0.6)`, opacity: 0 },
  ];
  const animation = el.animate(frames, { id: ID, duration: DURATION, easing: EASING });
  animation.onfinish = () => el.remove();
  animation.oncancel = () => el.remove();
}

/** The element drawing a card on the table now (not in the hand, not a line of text). */
function onTable(root, text) {
  const all = root.querySelectorAll(`.card[data-card="${CSS.escape(text)}"]`);
  return [...all].find((el) => !el.closest(".hand, .sheet, .moves, .opponent"));
}

function inHand(root, text) {
  return root.querySelector(`.hand [data-card="${CSS.escape(text)}"]`);
}

/** Play the moves of what was shown, once the page shows it. */
export function play(root) {
  const w = waiting;
  waiting = null;
  if (!w || reduced()) return;
  const before = w.rects;
  const now = snapshot(root);
  const mine = w.seat;
  const seatRect = (seat, rects) => (seat === mine ? rects.hand : rects.seats.get(seat));
  const drawn = new Map(w.events.filter((e) => e.kind === "you_drew").map((e) => [e.seat, e.card]));
  for (const e of w.events) {
    switch (e.kind) {
      case "deal_started":
        for (const seat of e.seats) if (seat !== mine) ghost(null, now.stock, now.seats.get(seat), w.look);
        break;
      case "stock_rebuilt":
        ghost(null, before.pile, now.stock, w.look);
        break;
      case "you_were_dealt":
        root.querySelectorAll(".hand [data-card]").forEach((el, i) => fly(el, now.stock || before.stock, i * STAGGER));
        break;
      case "drew": {
        const from = e.source === "stock" ? before.stock : before.pile;
        const text = e.source === "stock" ? drawn.get(e.seat) : e.card;
        if (e.seat === mine && text) fly(inHand(root, text), from);
        else ghost(e.source === "stock" ? null : e.card, from, seatRect(e.seat, now), w.look);
        break;
      }
      case "discarded": {
        const from = e.seat === mine ? before.cards.get(e.card) || before.hand : before.seats.get(e.seat);
        const el = root.querySelector(`[data-action=draw-discard] [data-card="${CSS.escape(e.card)}"]`);
        fly(el, from);
        break;
      }
      case "closed":
      case "showed":
        e.melds.flat().forEach((text, i) => {
          const from = (e.seat === mine && before.cards.get(text)) || seatRect(e.seat, before);
          fly(onTable(root, text), from, i * STAGGER);
        });
        break;
      case "laid_off": {
        const from = (e.seat === mine && before.cards.get(e.card)) || seatRect(e.seat, before);
        fly(onTable(root, e.card), from);
        break;
      }
      default:
        break;
    }
  }
}
