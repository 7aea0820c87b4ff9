// The room's state as the server's events make it (protocol version 2): a whole view to start from, each event
// folded into it. The renderer reads the view as before; `happened` lists what just happened, for animations.

export const VERSION = 2;

const HAPPENED = 20;

function meldsText(melds) {
  return melds.map((meld) => "[" + meld.join(" ") + "]").join(" ");
}

function removeCards(game, mine, seat, cards) {
  game.hand_sizes[seat] -= cards.length;
  for (const c of cards) {
    const i = game.taken[seat].indexOf(c);
    if (i >= 0) game.taken[seat].splice(i, 1);
    if (seat === mine) {
      const j = game.hand.indexOf(c);
      if (j >= 0) game.hand.splice(j, 1);
    }
  }
}

function nextSeat(game, seat) {
  const seats = game.seats;
  return seats[(seats.indexOf(seat) + 1) % seats.length];
}

/** One of the engine's events (or a private one of the view's seat) applied to the view's game, in place. */
function foldGame(view, e) {
  const mine = view.seat;
  const g = view.game;
  const seat = e.seat;
  switch (e.kind) {
    case "match_started":
      view.game = { scores: [...e.scores], active: [...e.active], pot: e.pot, previous_result: null,
        reentry_pending: [], match_over: false, winner: null };
      break;
    case "deal_started": {
      const players = g.scores.length;
      Object.assign(g, {
        phase: "draw", to_move: e.first, seats: [...e.seats], hand: [], arrangement: null,
        hand_sizes: Array.from({ length: players }, (_x, s) => (e.seats.includes(s) ? view.rules.hand_size : 0)),
        stock_size: e.stock, discard_pile: [e.discard], discards: [], taken: Array.from({ length: players }, () => []),
        last_draw: null, closer: null, table: [], revealed: [], result: null, history: [], legal_actions: [],
        scores: [...e.scores], dealer: e.dealer, deal_number: e.number, turn: 0, reentry_pending: [],
      });
      break;
    }
    case "you_were_dealt":
      g.hand = [...e.hand];
      break;
    case "stock_rebuilt":
      g.stock_size = e.stock;
      g.discard_pile = g.discard_pile.slice(-1);
      break;
    case "drew":
      g.phase = "discard";
      g.last_draw = e.source;
      g.hand_sizes[seat] += 1;
      g.history.push([seat, `draw ${e.source}`]);
      if (e.source === "stock") {
        g.stock_size -= 1;
      } else {
        g.discard_pile.pop();
        g.taken[seat].push(e.card);
        if (seat === mine) g.hand.push(e.card);
      }
      break;
    case "you_drew":
      g.hand.push(e.card);
      break;
    case "discarded":
      removeCards(g, mine, seat, [e.card]);
      g.discard_pile.push(e.card);
      g.discards.push([seat, e.card]);
      g.history.push([seat, `discard ${e.card}`]);
      g.turn += 1;
      g.phase = "draw";
      g.to_move = nextSeat(g, seat);
      break;
    case "closed":
      removeCards(g, mine, seat, e.melds.flat());
      g.hand_sizes[seat] -= 1; // the card put face down
      g.closer = seat;
      g.table = e.melds.map((cards) => ({ owner: seat, cards: [...cards], open: e.open }));
      g.turn += 1;
      g.phase = "showdown";
      g.to_move = e.to_move;
      g.history.push([seat, ["close", ...e.melds.map((m) => "[" + m.join(" ") + "]")].join(" ")]);
      break;
    case "you_put_face_down": {
      const i = g.hand.indexOf(e.card);
      if (i >= 0) g.hand.splice(i, 1);
      const melds = g.table.filter((m) => m.owner === seat).map((m) => m.cards);
      g.history[g.history.length - 1] = [seat, `close ${e.card} ${melds.length ? meldsText(melds) : "-"}`];
      break;
    }
    case "showed":
      removeCards(g, mine, seat, e.melds.flat());
      for (const cards of e.melds) g.table.push({ owner: seat, cards: [...cards], open: true });
      g.history.push([seat, e.melds.length ? `show ${meldsText(e.melds)}` : "show -"]);
      g.to_move = e.to_move;
      break;
    case "laid_off": {
      removeCards(g, mine, seat, [e.card]);
      const before = g.table[e.meld_index];
      g.table[e.meld_index] = { owner: e.owner, cards: [...e.meld], open: before.open };
      g.history.push([seat, `layoff ${e.card} ${e.meld_index}`]);
      g.to_move = e.to_move;
      break;
    }
    case "passed":
      g.history.push([seat, "pass"]);
      g.to_move = e.to_move;
      break;
    case "deal_ended": {
      const r = e.result;
      Object.assign(g, { phase: "over", to_move: null, result: r, previous_result: r, revealed: r.loose });
      g.scores = [...e.scores];
      g.active = g.active.filter((s) => !e.out.includes(s));
      if (r.closer !== null) g.table = r.table;
      g.hand_sizes = r.loose.map((loose) => loose.length);
      g.taken = g.taken.map((taken, s) => {
        const left = [...r.loose[s]];
        return taken.filter((c) => {
          const i = left.indexOf(c);
          if (i < 0) return false;
          left.splice(i, 1);
          return true;
        });
      });
      if (mine !== null) g.hand = [...r.loose[mine]];
      break;
    }
    case "reentry_asked":
      g.reentry_pending = [...e.seats];
      g.to_move = e.seats[0];
      break;
    case "reentered":
      g.reentry_pending.shift();
      g.scores[seat] = e.score;
      g.pot = e.pot;
      if (e.accept) g.active = [...g.active, seat].sort((a, b) => a - b);
      g.to_move = g.reentry_pending.length ? g.reentry_pending[0] : null;
      break;
    case "match_ended":
      Object.assign(g, { match_over: true, winner: e.winner, to_move: null, reentry_pending: [], pot: e.pot });
      g.scores = [...e.scores];
      view.status = "over";
      break;
    default:
      break;
  }
}

/** Whether an event message follows the view (its number is the view's next): else the client resyncs. */
export function follows(view, message) {
  return Boolean(view) && message.n === view.state + 1;
}

/** The view after an `event` message: a new object, the old one untouched (the renderer compares them). */
export function applyEvent(view, message) {
  const next = structuredClone(view);
  const e = message.event;
  next.state = message.n;
  if (e.kind === "start" || e.kind === "rematch") {
    Object.assign(next, { status: "playing", match: e.match, game: null });
  } else if (e.kind !== "join" && e.kind !== "leave" && e.kind !== "kick") {
    foldGame(next, e);
    for (const p of message.private) foldGame(next, p);
  }
  const g = next.game;
  if (g && g.phase !== undefined) {
    g.legal_actions = [...message.legal_actions];
    if (message.arrangement) g.arrangement = message.arrangement;
    else if (!g.hand.length) g.arrangement = null;
  }
  if (message.settled) next.turn_deadline = message.turn_deadline;
  return next;
}

/** The action an event tells, in the text form the log reads (`draw stock`, `close [3♥ 4♥ 5♥]`), or null. */
export function actionText(e) {
  switch (e.kind) {
    case "drew": return `draw ${e.source}`;
    case "discarded": return `discard ${e.card}`;
    case "closed": return ["close", ...e.melds.map((m) => "[" + m.join(" ") + "]")].join(" ");
    case "showed": return e.melds.length ? `show ${meldsText(e.melds)}` : "show -";
    case "laid_off": return `layoff ${e.card} ${e.meld_index}`;
    case "passed": return "pass";
    case "reentered": return e.accept ? "reenter yes" : "reenter no";
    default: return null;
  }
}

/** What just happened, newest last (for animations): each event with its text and the seat's private part. */
export function happenedAfter(list, message) {
  const entry = { n: message.n, event: message.event, text: message.text, private: message.private };
  return list.concat([entry]).slice(-HAPPENED);
}
