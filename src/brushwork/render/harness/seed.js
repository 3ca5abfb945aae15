// brushwork: the first script of both realms' pages, before any library. Seeds Math.random
// from this tag's data-seed (p5.brush captures its seeds from it at load time, and the
// sketch's own Math.random is seeded the same way).
//
// In the sketch realm (data-realm="sketch") it also fixes what else a painting could read
// that differs from one render to the next: the clock (Date, performance, Intl's and files'
// dates, animation-frame and event time stamps), crypto's random numbers, and history.length. Same sketch + seed, same
// painting. The paint realm keeps the real clock: it runs no sketch code and times the render.
(function () {
  "use strict";
  const data = document.currentScript.dataset;
  const seed = Number(data.seed || 0) >>> 0;
  // mulberry32: small, fast, good enough for reproducible painting noise.
  const stream = (start) => {
    let state = start || 0x9e3779b9;
    return function random() {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  };
  Math.random = stream(seed);
  if (data.realm !== "sketch") return;

  // The clock: the same instant at every render, advancing by a fixed step at each reading (so
  // a loop that waits for time to pass ends) and by one frame at each animation frame.
  const EPOCH = Date.UTC(2024, 0, 1);
  const READ_STEP = 0.005;  // ms: performance.now()'s own resolution
  const FRAME = 1000 / 60;
  let clock = 0;
  const now = () => { clock += READ_STEP; return clock; };
  const define = (target, name, spec) => Object.defineProperty(target, name, { configurable: true, ...spec });
  const getter = (target, name, get) => define(target, name, { get: get, enumerable: true });

  define(Performance.prototype, "now", { value: function now_() { return now(); }, writable: true });
  getter(Performance.prototype, "timeOrigin", () => EPOCH);
  for (const name of ["getEntries", "getEntriesByType", "getEntriesByName"]) {
    define(Performance.prototype, name, { value: function () { return []; }, writable: true });
  }
  if ("memory" in performance) getter(Performance.prototype, "memory", () => undefined);
  getter(Event.prototype, "timeStamp", () => clock);
  if (typeof AnimationTimeline === "function") getter(AnimationTimeline.prototype, "currentTime", () => clock);

  const RealDate = Date;
  const FixedDate = function Date(...args) {
    if (new.target === undefined) return new RealDate(EPOCH + Math.floor(now())).toString();
    return Reflect.construct(RealDate, args.length === 0 ? [EPOCH + Math.floor(now())] : args, new.target);
  };
  FixedDate.prototype = RealDate.prototype;
  FixedDate.UTC = RealDate.UTC;
  FixedDate.parse = RealDate.parse;
  FixedDate.now = function now_() { return EPOCH + Math.floor(now()); };
  define(RealDate.prototype, "constructor", { value: FixedDate, writable: true });
  define(window, "Date", { value: FixedDate, writable: true });

  // The browser's other readings of the wall clock.
  const formatOf = Object.getOwnPropertyDescriptor(Intl.DateTimeFormat.prototype, "format").get;
  getter(Intl.DateTimeFormat.prototype, "format", function () {
    const format = formatOf.call(this);
    return (date) => format(date === undefined ? FixedDate.now() : date);
  });
  const partsOf = Intl.DateTimeFormat.prototype.formatToParts;
  define(Intl.DateTimeFormat.prototype, "formatToParts", {
    value: function formatToParts(date) { return partsOf.call(this, date === undefined ? FixedDate.now() : date); },
    writable: true,
  });
  getter(File.prototype, "lastModified", () => FixedDate.now());
  getter(Document.prototype, "lastModified", () => "01/01/2024 00:00:00");
  for (const name of ["timing", "navigation"]) getter(Performance.prototype, name, () => undefined);
  define(Performance.prototype, "toJSON", { value: function toJSON() { return { timeOrigin: EPOCH }; }, writable: true });

  // Animation frames see the frame's own time, not the browser's.
  const realFrame = window.requestAnimationFrame.bind(window);
  let lastStamp = -1;
  define(window, "requestAnimationFrame", {
    value: function requestAnimationFrame(callback) {
      return realFrame((stamp) => {
        if (stamp !== lastStamp) { lastStamp = stamp; clock = (Math.floor(clock / FRAME) + 1) * FRAME; }
        if (typeof callback === "function") callback(clock);
      });
    },
    writable: true,
  });

  // crypto: seeded random values (its own stream, apart from Math.random's), no keys.
  const bytes = stream((seed ^ 0x5bd1e995) >>> 0);
  const fill = function getRandomValues(array) {
    if (!ArrayBuffer.isView(array) || array instanceof Float32Array || array instanceof Float64Array) {
      throw new TypeError("getRandomValues: an integer typed array");
    }
    const view = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    for (let i = 0; i < view.length; i += 1) view[i] = Math.floor(bytes() * 256);
    return array;
  };
  define(Crypto.prototype, "getRandomValues", { value: fill, writable: true });
  define(Crypto.prototype, "randomUUID", {
    value: function randomUUID() {
      const b = fill(new Uint8Array(16));
      b[6] = (b[6] & 0x0f) | 0x40;
      b[8] = (b[8] & 0x3f) | 0x80;
      const hex = Array.from(b, (x) => (x + 0x100).toString(16).slice(1)).join("");
      return hex.slice(0, 8) + "-" + hex.slice(8, 12) + "-" + hex.slice(12, 16) + "-" + hex.slice(16, 20) + "-"
        + hex.slice(20);
    },
    writable: true,
  });
  getter(Crypto.prototype, "subtle", () => undefined);

  getter(History.prototype, "length", () => 1);
})();
