"""The sketch language, as the boundary between the two realms defines it.

A sketch is ordinary modern JavaScript and p5.js 2.x: its own functions and classes,
`async function setup()`, maths, `random` / `noise`, colours, vectors, width / height. It
runs in its own realm (render/harness/realm.js); what reaches the painting is only what
crosses into the paint realm (render/harness/replay.js):

- `brush.<method>(...)` calls, recorded by name with their arguments reduced to data
  (numbers, strings, booleans, arrays and plain objects of those; a p5.Color becomes its
  CSS colour string). Which methods a sketch may use is the gate's allow-list; every method
  but `NOT_REPLAYED` is replayed, so the renderer needs no gate configuration;
- the p5 statements in `REPLAYED` (transforms, background, colour and angle modes, seeds),
  recorded the same way;
- `createCanvas(size, size, WEBGL)`, once.

p5 functions in `FINDINGS` do nothing in the sketch realm: each call is reported by name
under its rule id (the model is told what it called). Everything else is p5's own and has
no effect on the painting except through the calls above.
"""

from __future__ import annotations

from brushwork.core import vocabulary as V

# p5 statements the paint realm replays, in the order the sketch made them.
REPLAYED = frozenset({"background", "clear", "translate", "rotate", "scale", "push", "pop", "resetMatrix", "angleMode",
                      "colorMode", "randomSeed", "noiseSeed"})
# p5.brush methods never replayed: they take the p5 instance, load files or register a brush
# from code, none of which is data.
NOT_REPLAYED = frozenset({"instance", "load", "add"})
# p5 functions that are findings in the sketch realm, by the id the sketch realm reports.
FINDINGS = {
    "p5_drawing": V.P5_PRIMITIVES,
    "text_drawing": V.P5_TEXT,
    "raw_drawing": V.P5_RAW - {"_renderer", "webglVersion", "drawingContext", "pixels"},
    "unlisted_call": (V.EXTERNAL_NAMES | V.CANVAS_CHANGERS) - {"createCanvas", "pixelDensity"},
    # The browser's own ways out (blocked by the sketch realm's policy anyway): named, and nothing.
    "external_access": frozenset({"fetch", "XMLHttpRequest", "WebSocket", "EventSource", "RTCPeerConnection",
                                  "Worker", "SharedWorker", "open", "importScripts"}),
}
# The first four are p5's functions (replaced only where p5 has one by that name); the last, the browser's.
P5_FINDINGS = ("p5_drawing", "text_drawing", "raw_drawing", "unlisted_call")
# Accessibility descriptions are text for screen readers, not paint: quietly nothing.
QUIET = frozenset({"describe", "describeElement", "gridOutput", "textOutput"})
# The ids the sketch realm may report; a message with any other is not a display list.
FINDING_IDS = frozenset(FINDINGS) | {"canvas_size", "not_webgl", "canvas_replaced", "unsupported_argument",
                                     "navigation"}
# Caps on what crosses: calls, and the message's size in bytes (over either: `too_long`).
MAX_OPS = 50_000
MAX_MESSAGE_BYTES = 8_000_000
