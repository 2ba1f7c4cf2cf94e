// A starter plug-in in JavaScript (Node.js 20, no packages), speaking window-process/1 (docs/protocol.md):
// tumbling and sliding event-time windows with allowed lateness and the late-data side output, as Flink's
// WindowOperator runs them with its default EventTimeTrigger. It passes the suite as it is:
//
//     python -m conformance run --impl 'exec:node examples/starter-windows.js' --profile ci
//     python -m conformance replay corpus --impl 'exec:node examples/starter-windows.js' --check
//
// The same rules as examples/starter_windows.py, one function each (docs/plugin.md gives them). Every time is
// a BigInt: Java's long does not fit in a double, and JSON.parse would read 9223372036854775807 wrong
// (docs/format.md, "Integers beyond 2^53"), so integers are read and written exactly here.
"use strict";

const readline = require("node:readline");

const FEATURES = ["assigner.tumbling", "assigner.sliding", "offset", "allowed_lateness", "late_side_output",
                  "negative_timestamps", "unbounded_input"];
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
const MAX_WINDOW_NUM = 10000000n;  // SlidingEventTimeWindows: size / slide at most
const WINDOWS_PER_ELEMENT_LIMIT = 10000n;  // the contract's stop (window_contract/facts.py)
const TOO_MANY_WINDOWS = "a window assignment yields more than 10,000 windows for one element: beyond what the "
                         + "contract compares (stopped)";
const NEGATIVE_LATENESS = "The allowed lateness cannot be negative.";

// --- JSON with every integer a BigInt --------------------------------------------------------------------
const TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;  // a string, or a number
const MARK = "\u0000";  // a string starting with it was an integer; a string that did gets a second one

function parseExact(text) {
  const marked = text.replace(TOKEN, (t) => t.startsWith('"') ? t.replace(/^"\\u0000/, '"\\u0000\\u0000')
                                           : /^-?\d+$/.test(t) ? `"\\u0000${t}"` : t);
  return JSON.parse(marked, (key, v) => typeof v !== "string" || !v.startsWith(MARK) ? v
                                       : v.startsWith(MARK + MARK) ? v.slice(1) : BigInt(v.slice(1)));
}

function stringifyExact(v) {
  if (typeof v === "bigint") return v.toString();
  if (Array.isArray(v)) return `[${v.map(stringifyExact).join(",")}]`;
  if (v !== null && typeof v === "object")
    return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${stringifyExact(x)}`).join(",")}}`;
  return JSON.stringify(v);
}

// --- the rules --------------------------------------------------------------------------------------------
const floorMod = (a, b) => ((a % b) + b) % b;  // BigInt's % truncates, as Java's does: the start needs the floor
const abs = (a) => a < 0n ? -a : a;

// Flink's message for a specification it rejects when the job is built, in Flink's order.
function rejected(c) {
  const w = c.window;
  if (w.assigner === "sliding") {
    if (!(abs(w.offset) < w.slide) || w.size <= 0n)
      return "SlidingEventTimeWindows parameters must satisfy abs(offset) < slide and size > 0";
    if (w.size / w.slide > MAX_WINDOW_NUM)
      return `SlidingEventTimeWindows parameters must satisfy size / slide <= ${MAX_WINDOW_NUM}`;
  } else if (!(abs(w.offset) < w.size)) {
    return "TumblingEventTimeWindows parameters must satisfy abs(offset) < size";
  }
  if (c.lateness < 0n) return NEGATIVE_LATENESS;
  return null;
}

// The windows of an element at ts, the latest first; null past the contract's stop.
function assignWindows(w, ts) {
  const slide = w.assigner === "sliding" ? w.slide : w.size;
  const last = ts - floorMod(ts - w.offset, slide);
  const count = last > ts - w.size ? (last - (ts - w.size) + slide - 1n) / slide : 0n;
  if (count > WINDOWS_PER_ELEMENT_LIMIT) return null;
  const windows = [];
  for (let start = last; start > ts - w.size; start -= slide) windows.push({start, end: start + w.size});
  return windows;
}

class Operator {
  constructor(lateness, sideOutput) {
    Object.assign(this, {lateness, sideOutput, watermark: LONG_MIN, contents: new Map(), timers: new Map(),
                         firings: [], late: [], dropped: []});
  }

  maxTimestamp(window) { return window.end - 1n; }
  cleanupTime(window) { return this.maxTimestamp(window) + this.lateness; }

  // A record: added to each of its windows that is not late; a window the watermark has passed fires at once;
  // a record whose every window is late goes to the side output once ts + allowedLateness is behind too.
  element(at, r, windows) {
    let skipped = true;
    for (const window of windows) {
      if (this.cleanupTime(window) <= this.watermark) continue;
      skipped = false;
      const id = `${r.key}\u0001${window.start}\u0001${window.end}`;
      if (!this.contents.has(id)) this.contents.set(id, {key: r.key, window, values: []});
      this.contents.get(id).values.push(r.value);
      if (this.maxTimestamp(window) <= this.watermark) this.fire(at, id);
      else this.timers.set(`${this.maxTimestamp(window)}\u0001${id}`, [this.maxTimestamp(window), id]);
      if (this.cleanupTime(window) < LONG_MAX)
        this.timers.set(`${this.cleanupTime(window)}\u0001${id}`, [this.cleanupTime(window), id]);
    }
    if (skipped && r.ts + this.lateness <= this.watermark)
      (this.sideOutput ? this.late : this.dropped).push({at, key: r.key, value: r.value, ts: r.ts});
  }

  // A higher watermark: every timer up to it, in timestamp order; a window's maxTimestamp fires it (its
  // contents stay), its cleanup time clears it.
  advance(at, watermark) {
    if (watermark <= this.watermark) return;
    this.watermark = watermark;
    const due = [...this.timers].filter(([, [t]]) => t <= watermark).sort(([, [a]], [, [b]]) => a < b ? -1 : a > b);
    for (const [name, [timestamp, id]] of due) {
      this.timers.delete(name);
      const state = this.contents.get(id);
      if (state === undefined) continue;
      if (timestamp === this.maxTimestamp(state.window)) this.fire(at, id);
      if (timestamp === this.cleanupTime(state.window)) this.contents.delete(id);
    }
  }

  fire(at, id) {
    const {key, window, values} = this.contents.get(id);
    this.firings.push({at, key, window, timestamp: this.maxTimestamp(window),
                       values: [...values].sort((a, b) => a < b ? -1 : a > b), watermark: this.watermark});
  }
}

function runCase(doc) {
  const c = {window: {offset: 0n, ...doc.window}, lateness: doc.allowed_lateness ?? 0n,
             sideOutput: doc.late_side_output ?? false, endOfInput: doc.end_of_input ?? true};
  const observation = {format: "window-observation/1", firings: [], late: [], dropped: [], error: null};
  const problem = rejected(c);
  if (problem !== null) return {...observation, error: {kind: "invalid_spec", message: problem}};
  const op = new Operator(c.lateness, c.sideOutput);
  let error = null;
  for (const [i, event] of doc.events.entries()) {
    const at = BigInt(i);
    if ("record" in event) {
      const windows = assignWindows(c.window, event.record.ts);
      if (windows === null) { error = {kind: "runtime", message: TOO_MANY_WINDOWS}; break; }
      op.element(at, event.record, windows);
    } else if ("watermark" in event) {
      op.advance(at, event.watermark);
    }  // other events (a processing-time clock) mean nothing to event-time windows
  }
  if (error === null && c.endOfInput) op.advance(BigInt(doc.events.length), LONG_MAX);
  return {...observation, firings: op.firings, late: op.late, dropped: op.dropped, error};
}

// --- the conversation ---------------------------------------------------------------------------------------
const say = (message) => process.stdout.write(stringifyExact(message) + "\n");
say({type: "hello", protocol: "window-process/1", name: "starter-windows-js", features: FEATURES});
readline.createInterface({input: process.stdin}).on("line", (line) => {
  const request = parseExact(line);
  say({type: "observations", id: request.id, observations: request.cases.map(runCase)});
});
