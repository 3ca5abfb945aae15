// brushwork harness, part 1: runs before p5 and p5.brush load.
// p5.brush captures its seeds from Math.random at load time, so Math.random must be
// seeded here, before any library script runs. Also installs the run-time monitors
// (errors, CSP violations, DOM changes) that the gate reads after the render.
(function () {
  "use strict";
  // Parameters come from this script tag's data attributes (data-seed, data-size), so the
  // same file works served by brushwork or inlined into a page by someone else.
  const tag = document.currentScript;
  const params = new Map(Object.entries((tag && tag.dataset) || {}));
  const seed = Number(params.get("seed") || 0) >>> 0;

  // mulberry32: small, fast, good enough for reproducible painting noise.
  let state = seed || 0x9e3779b9;
  const seeded = function random() {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  Object.defineProperty(Math, "random", { value: seeded, writable: false, configurable: false });

  const events = {
    errors: [],
    blocked: [],
    dom: [],
    runtime: [],
    calls: {},
    paintCalls: 0,
    clearedAfterPaint: 0,
    phase: "loading",
    timings: { start: performance.now() },
  };

  const push = (list, item) => { if (list.length < 50) list.push(item); };
  window.addEventListener("error", (e) => {
    push(events.errors, { message: String(e.message || e.error || "error"), line: e.lineno || null,
                          source: String(e.filename || "").split("/").pop() });
  });
  window.addEventListener("unhandledrejection", (e) => {
    const r = e.reason;
    push(events.errors, { message: "unhandled rejection: " + String((r && r.message) || r), line: null, source: "" });
  });
  document.addEventListener("securitypolicyviolation", (e) => {
    push(events.blocked, { url: String(e.blockedURI || ""), directive: String(e.effectiveDirective || e.violatedDirective || ""),
                           line: e.lineNumber || null });
  });
  const allowedTags = new Set(["CANVAS", "MAIN"]);
  const observer = new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (n.nodeType === 1 && !allowedTags.has(n.tagName)) push(events.dom, "added <" + n.tagName.toLowerCase() + ">");
        if (n.nodeType === 3 && n.textContent.trim()) push(events.dom, "added text");
      }
    }
  });
  // Called by the harness once the libraries are loaded: only what happens from setup on counts.
  events.observeDom = () => observer.observe(document.documentElement, { childList: true, subtree: true });

  Object.defineProperty(window, "__bwEvents", { value: events, writable: false, configurable: false, enumerable: false });
  Object.defineProperty(window, "__bwParams", {
    value: Object.freeze({ seed: seed, size: Number(params.get("size")) || 600,
                           watch: {
                             p5_drawing: String(params.get("watchDraw") || "").split(",").filter(Boolean),
                             text_drawing: String(params.get("watchText") || "").split(",").filter(Boolean),
                             raw_drawing: String(params.get("watchRaw") || "").split(",").filter(Boolean),
                           } }),
    writable: false, configurable: false, enumerable: false,
  });
})();
