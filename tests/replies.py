"""Model replies the command-line and scoring tests share, each declared once: a coral disc (the
cheapest honest painting, one brush shape) and a five-petal hibiscus (a painting the taste model
and the judge have something to read in), and `with_text`, which turns either into the
commonest cheat, text written on the canvas."""

from __future__ import annotations

CORAL_DISC = """Here is a coral hibiscus.
```js
function setup() { createCanvas(600, 600, WEBGL); noLoop(); }
function draw() {
  translate(-width / 2, -height / 2);
  background(248, 244, 236);
  brush.noStroke();
  brush.fill("#ff7f50", 120);
  brush.fillBleed(0.2);
  brush.circle(300, 300, 140);
}
```
"""

HIBISCUS = """A coral hibiscus:
```js
function setup() { createCanvas(600, 600, WEBGL); noLoop(); }
function draw() {
  translate(-width / 2, -height / 2);
  background(249, 245, 236);
  brush.noStroke();
  for (let i = 0; i < 5; i++) {
    const a = i * TWO_PI / 5;
    brush.fill("#ff7f50", 100);
    brush.fillBleed(0.3);
    brush.fillTexture(0.5, 0.3);
    brush.beginShape(0.6);
    brush.vertex(300, 300);
    brush.vertex(300 + cos(a - 0.5) * 170, 300 + sin(a - 0.5) * 170);
    brush.vertex(300 + cos(a) * 200, 300 + sin(a) * 200);
    brush.vertex(300 + cos(a + 0.5) * 170, 300 + sin(a + 0.5) * 170);
    brush.endShape(CLOSE);
  }
  brush.fill("#8b1a1a", 150);
  brush.circle(300, 300, 28);
}
```"""


def with_text(reply: str, call: str = 'text("A+", 10, 10)') -> str:
    """`reply` with `call` (text on the canvas: a cheat) as the last line of its draw()."""
    head, _, tail = reply.rpartition("\n}\n```")
    return f"{head}\n  {call};\n}}\n```{tail}"
