// brushwork: the first script of both realms' pages, before any library. Seeds Math.random
// from this tag's data-seed (p5.brush captures its seeds from it at load time, and the
// sketch's own Math.random is seeded the same way).
(function () {
  "use strict";
  const seed = Number(document.currentScript.dataset.seed || 0) >>> 0;
  // mulberry32: small, fast, good enough for reproducible painting noise.
  let state = seed || 0x9e3779b9;
  Math.random = function random() {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
})();
