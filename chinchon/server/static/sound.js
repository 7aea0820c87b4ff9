// Sounds made with WebAudio (no sound files): your turn, a close, the end of the match. Off unless the player turns
// them on; the audio context is made on that click, as browsers ask.

let context = null;

const NOTES = {
  turn: [[660, 0, 0.12], [880, 0.11, 0.16]],
  close: [[523, 0, 0.22], [659, 0.06, 0.22], [784, 0.12, 0.3]],
  end: [[523, 0, 0.16], [659, 0.15, 0.16], [784, 0.3, 0.16], [1047, 0.45, 0.45]],
};

/** Get the audio ready (call it from a click): whether sound can be played. */
export function unlock() {
  try {
    if (!context) {
      const Audio = window.AudioContext || window.webkitAudioContext;
      if (!Audio) return false;
      context = new Audio();
    }
    if (context.state === "suspended") context.resume();
    return true;
  } catch {
    return false;
  }
}

/** Play one of the sounds ("turn", "close", "end"), softly. */
export function play(name) {
  if (!context || !NOTES[name]) return;
  const start = context.currentTime + 0.01;
  for (const [frequency, at, length] of NOTES[name]) {
    const osc = context.createOscillator();
    const gain = context.createGain();
    osc.type = "sine";
    osc.frequency.value = frequency;
    gain.gain.setValueAtTime(0.0001, start + at);
    gain.gain.exponentialRampToValueAtTime(0.12, start + at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + at + length);
    osc.connect(gain).connect(context.destination);
    osc.start(start + at);
    osc.stop(start + at + length + 0.05);
  }
}
