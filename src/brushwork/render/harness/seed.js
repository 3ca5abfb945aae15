// brushwork's paint realm, part 1: the first script on the page, before p5 and p5.brush load.
// Seeds Math.random (p5.brush captures its seeds from it at load time) and keeps the page's
// parameters for replay.js. No sketch code ever runs on this page.
(function () {
  "use strict";
  const data = document.currentScript.dataset;
  const seed = Number(data.seed || 0) >>> 0;
  // mulberry32: small, fast, good enough for reproducible painting noise.
  let state = seed || 0x9e3779b9;
  Math.random = function random() {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const list = (name) => { const s = String(data[name] || ""); return s === "" ? [] : s.split(","); };
  window.__bwParams = Object.freeze({
    seed: seed,
    size: Number(data.size || 600),
    frame: String(data.frame || ""),
    allow: list("allow"),
    brush: list("brush"),
    painting: list("painting"),
    replay: list("replay"),
    findings: list("findings"),
    maxOps: Number(data.maxOps || 50000),
    maxBytes: Number(data.maxBytes || 8000000),
    start: performance.now(),
  });
})();
