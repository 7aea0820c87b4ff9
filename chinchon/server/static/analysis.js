// The analysis of a finished match in the replay: each decision's mark, the better move, a graph of the cost.
// The server makes it (POST /api/games/{id}/analysis) and the page asks how it goes until it is done.

import { h } from "./dom.js";
import { _, pgettext } from "./i18n.js";
import { getJson, postJson } from "./account.js";

export const MARKS = ["best", "inaccuracy", "mistake", "blunder"];

/** A mark's name. */
export function markName(mark) {
  switch (mark) {
    case "best": return pgettext("analysis mark", "best");
    case "inaccuracy": return pgettext("analysis mark", "inaccuracy");
    case "mistake": return pgettext("analysis mark", "mistake");
    case "blunder": return pgettext("analysis mark", "blunder");
    default: return mark;
  }
}

function meldsText(text) {
  return (text.match(/\[[^\]]*\]/g) || []).join(" ");
}

/** An action of the record ("discard 7♣") as advice in the page's language; `top` is the discard pile's card at a draw. */
export function adviceText(action, top) {
  const [verb, ...rest] = action.split(" ");
  const card = rest[0];
  switch (verb) {
    case "draw":
      if (card === "stock") return _("draw from the stock");
      return top ? _("take {card}", { card: top }) : _("take the discard");
    case "discard": return _("discard {card}", { card });
    case "close": return _("close, {card} face down: {melds}", { card, melds: meldsText(action) });
    case "show": {
      const melds = meldsText(action);
      return melds ? _("show {melds}", { melds }) : _("show no melds");
    }
    case "layoff": return _("lay off {card}", { card });
    case "pass": return _("pass");
    case "reenter": return card === "yes" ? _("re-enter") : _("stay out");
    default: return action;
  }
}

/** The replay's step of each decision, by its number: the replay has a step for each public event after the
 * match's start (the event numbered 2 is step 0). */
export function decisionSteps(doc) {
  return new Map(doc.decisions.map((d) => [d.number, d.event - 2]));
}

/** The kinds of the events that tell a seat's own action. */
const ACTED = new Set(["drew", "discarded", "closed", "showed", "laid_off", "passed", "re_entered"]);

function costText(d) {
  const chance = d.chance_cost ? _("{percent}% of the chance to win the match", { percent: (100 * d.chance_cost).toFixed(1) }) : null;
  if (d.cost === null) return chance || "0";
  const points = d.exact ? _("{points} points, exactly", { points: d.cost.toFixed(0) })
    : _("{points} points", { points: d.cost.toFixed(1) });
  return chance ? `${points} · ${chance}` : points;
}

const W = 600, H = 120, PAD = 6, TOP = 15;

/** A graph of the cost of every decision over the match (bars, by mark), the one at the current step ringed. */
function costGraph(doc, at, current, a) {
  const decisions = doc.decisions;
  if (!decisions.length) return null;
  const n = decisions.length;
  const step = (W - 2 * PAD) / n;
  const bar = Math.max(1, step - 1);
  const y = (cost) => H - PAD - (Math.min(TOP, cost) / TOP) * (H - 2 * PAD);
  let total = 0;
  const line = [];
  const most = Math.max(1, decisions.reduce((sum, d) => sum + (d.cost || 0), 0));
  const bars = decisions.map((d, k) => {
    const cost = d.cost === null ? 100 * (d.chance_cost || 0) / 2 : d.cost;
    total += d.cost || 0;
    const x = PAD + k * step;
    line.push(`${(x + bar / 2).toFixed(1)},${(H - PAD - (total / most) * (H - 2 * PAD)).toFixed(1)}`);
    // Every bar keeps a few pixels, so a costly decision whose points cost rounds to nothing can still be seen and clicked.
    const top = Math.min(y(cost), H - PAD - (d.mark === "best" ? 2 : 4));
    const ring = d.number === current ? " current" : "";
    const stepIndex = at.get(d.number);
    return `<rect x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${bar.toFixed(1)}" height="${(H - PAD - top).toFixed(1)}"`
      + ` class="cost-bar mark-${d.mark}${ring}" data-step="${stepIndex === undefined ? "" : stepIndex}"><title>${d.number}</title></rect>`;
  }).join("");
  const cumulative = `<polyline points="${line.join(" ")}" class="cost-total" fill="none"/>`;
  const base = `<line x1="${PAD}" x2="${W - PAD}" y1="${H - PAD}" y2="${H - PAD}" class="zero-line"/>`;
  return h("div", {
    class: "chart cost-chart", role: "img", "data-graph": String(n),
    "aria-label": _("The cost of each decision over the match; the line adds them up"),
    onclick: (e) => {
      const target = e.target.closest ? e.target.closest("[data-step]") : null;
      if (target && target.dataset.step !== "") a.replayGo(Number(target.dataset.step));
    },
    html: `<svg viewBox="0 0 ${W} ${H}" preserveAspectRatio="none" aria-hidden="true">${base}${bars}${cumulative}</svg>`,
  });
}

function summaryText(summary) {
  const parts = [_("{count} decisions", { count: summary.decisions })];
  if (summary.mean_cost !== null) parts.push(_("{points} points lost a decision", { points: summary.mean_cost.toFixed(2) }));
  parts.push(MARKS.slice(1).map((mark) => `${markName(mark)}: ${summary.marks[mark]}`).join(", "));
  return parts.join(" · ");
}

/** The analysis part of the replay page: the button, how far it is, or the analysis at this step and its graph. */
export function analysisPanel(s, a, replay, i) {
  const state = s.analysis && s.analysis.game === replay.game.id ? s.analysis : null;
  const seats = replay.seats;
  const seat = state ? state.seat : defaultSeat(s, replay);
  const picker = h("select", { name: "analysis-seat", "aria-label": _("Whose decisions"),
    onchange: (e) => a.analysisSeat(replay.game.id, Number(e.target.value)) },
    seats.map((name, k) => h("option", { value: String(k), selected: k === seat, key: String(k) }, name)));
  const ask = h("button", { type: "button", class: "small primary", "data-action": "analyse",
    onclick: () => a.analyse(replay.game.id, seat) }, _("Analyse"));
  if (!state || state.status === null || state.status === "none") {
    return h("section", { class: "analysis panel-line", "data-analysis": "none" },
      h("span", null, _("Every decision rated by the search:")), picker, ask);
  }
  if (state.status === "queued" || state.status === "running") {
    return h("section", { class: "analysis panel-line", "data-analysis": state.status },
      h("span", { role: "status" }, _("Analysing {name}'s decisions: {done} of {total}",
        { name: seats[seat], done: state.done, total: state.total || "…" })),
      h("progress", { max: String(state.total || 1), value: String(state.done) }));
  }
  if (state.status !== "done" || !state.doc) {
    const why = state.status === "cancelled" ? _("The analysis was stopped: nobody was waiting for it.")
      : state.error || _("The analysis failed.");
    return h("section", { class: "analysis panel-line", "data-analysis": state.status }, h("span", null, why), picker, ask);
  }
  const doc = state.doc;
  const at = decisionSteps(doc);
  const step = replay.steps[i];
  let number = null;
  for (const [n, k] of at) if (k === i) number = n;
  const decision = number === null ? null : doc.decisions.find((d) => d.number === number) || null;
  return h("section", { class: "analysis", "data-analysis": "done" },
    h("div", { class: "row panel-line" },
      h("b", null, _("Analysis of {name}", { name: seats[doc.seat] })),
      h("span", { class: "muted", "data-summary": "1" }, summaryText(doc.summary)),
      h("span", { class: "grow" }), picker, ask),
    decision ? h("p", { class: `decision mark-${decision.mark}`, "data-mark": decision.mark, "data-number": String(decision.number) },
      h("span", { class: `badge mark-${decision.mark}` }, markName(decision.mark)), " ",
      decision.best === decision.played
        ? _("{name} played {action}: the best move found.", { name: seats[doc.seat], action: adviceText(decision.played, decision.top) })
        : [_("Better: {action}", { action: adviceText(decision.best, decision.top) }), " · ",
          _("it cost {cost}", { cost: costText(decision) })])
      : h("p", { class: "decision muted", "data-mark": "" },
        step && step.seat === doc.seat && ACTED.has(step.kind) ? _("No choice here.") : _("Step to one of {name}'s moves to see it rated.", { name: seats[doc.seat] })),
    costGraph(doc, at, number, a));
}

/** The seat whose analysis a replay shows first: the logged-in player's, else the first. */
export function defaultSeat(s, replay) {
  const me = s.account && replay.game.players.find((p) => p.player === s.account.name);
  return me ? me.seat : 0;
}

/** The analysis's actions, over the app's state: `ctx` has state, update(changes), toast(text) and go(hash). */
export function analysisActions(ctx) {
  const { state, update, toast, go } = ctx;
  let timer = null;

  function showing(game) {
    return state.route && state.route.page === "replay" && state.route.arg === game;
  }

  function take(game, seat, answer) {
    update({ analysis: { game, seat, status: answer.status, done: answer.done, total: answer.total,
      doc: answer.analysis, error: answer.error } });
    clearTimeout(timer);
    if (answer.status === "queued" || answer.status === "running") timer = setTimeout(() => poll(game, seat), 1500);
  }

  async function poll(game, seat) {
    if (!showing(game) || !state.analysis || state.analysis.game !== game || state.analysis.seat !== seat) return;
    try {
      take(game, seat, await getJson(`/api/games/${encodeURIComponent(game)}/analysis?seat=${seat}`, state.lang));
    } catch (e) {
      update({ analysis: { game, seat, status: "failed", done: 0, total: 0, doc: null, error: e.message } });
    }
  }

  /** On opening a replay: the analysis of the seat, if one was asked for. */
  async function open(game, seat) {
    try {
      take(game, seat, await getJson(`/api/games/${encodeURIComponent(game)}/analysis?seat=${seat}`, state.lang));
    } catch {
      if (!state.analysis || state.analysis.game !== game || state.analysis.seat !== seat) {
        update({ analysis: { game, seat, status: null, done: 0, total: 0, doc: null, error: null } });
      }
    }
  }

  return {
    analysisOpen: open,
    async analyse(game, seat) {
      try {
        take(game, seat, await postJson(`/api/games/${encodeURIComponent(game)}/analysis`, { seat }, state.lang));
      } catch (e) {
        if (e.code === "analysis_running") {
          update({ analysis: { game, seat, status: "queued", done: 0, total: 0, doc: null, error: null } });
          poll(game, seat);
        } else {
          toast(e.message);
        }
      }
    },
    analysisSeat(game, seat) {
      update({ analysis: { game, seat, status: null, done: 0, total: 0, doc: null, error: null } });
      open(game, seat);
    },
    /** "Analyse" at a finished match: the room's latest match, then its replay. */
    async analyseRoom(code, seat) {
      let answer = null;
      try {
        answer = await postJson(`/api/rooms/${encodeURIComponent(code)}/analysis`, { seat }, state.lang);
      } catch (e) {
        if (e.code !== "analysis_running") {
          toast(e.message);
          return;
        }
        try {
          answer = await getJson(`/api/rooms/${encodeURIComponent(code)}/analysis?seat=${seat}`, state.lang);
        } catch (again) {
          toast(again.message);
          return;
        }
      }
      if (!answer.game) {
        toast(_("This match is not in the history yet; try again in a moment."));
        return;
      }
      update({ analysis: { game: answer.game, seat, status: answer.status, done: answer.done, total: answer.total,
        doc: answer.analysis, error: answer.error } });
      go(`#/replay/${encodeURIComponent(answer.game)}`);
    },
  };
}
