// A yellow hibiscus with a red centre and one leaf, painted in single flat washes
// on white; the petals are identical and evenly spaced.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

// a plain, symmetric petal: a stiff six-point lozenge from (cx, cy) along ang
function flatpetal(cx, cy, ang, len, wid) {
  const pts = [[0, 0], [0.3 * len, -0.45 * wid], [0.85 * len, -0.5 * wid], [len, 0], [0.85 * len, 0.5 * wid], [0.3 * len, 0.45 * wid]];
  brush.beginShape(0.3);
  for (const p of pts) {
    brush.vertex(cx + p[0] * cos(ang) - p[1] * sin(ang), cy + p[0] * sin(ang) + p[1] * cos(ang));
  }
  brush.endShape(CLOSE);
}

// a pointed leaf from its stem end (x, y) along ang
function leaf(x, y, ang, len, wid) {
  brush.beginShape(0.8);
  for (let k = 0; k <= 10; k++) {
    const t = k / 10, w = wid * sin(PI * t) * (1 - 0.3 * t);
    brush.vertex(x + len * t * cos(ang) + w * sin(ang), y + len * t * sin(ang) - w * cos(ang));
  }
  for (let k = 9; k >= 1; k--) {
    const t = k / 10, w = wid * sin(PI * t) * (1 - 0.3 * t);
    brush.vertex(x + len * t * cos(ang) - w * sin(ang), y + len * t * sin(ang) + w * cos(ang));
  }
  brush.endShape(CLOSE);
}

// set colour, opacity, bleed and texture in one call
function wash(col, op, bleed, tex, border) {
  brush.fill(col, op);
  brush.fillBleed(bleed);
  brush.fillTexture(tex, border);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(252, 252, 250);
  brush.noStroke();
  const cx = 290, cy = 280;
  wash("#6f9a52", 210, 0.05, 0.1, 0);
  leaf(cx + 60, cy + 120, 0.6, 170, 50);
  for (let i = 0; i < 5; i++) {
    wash("#f5d442", 210, 0.05, 0.1, 0);
    flatpetal(cx, cy, -1.2 + i * TWO_PI / 5, 165, 130);
  }
  wash("#a41e2a", 230, 0.05, 0.1, 0);
  brush.circle(cx, cy, 36);
  wash("#e8a020", 230, 0.05, 0.1, 0);
  brush.circle(cx + 40, cy - 80, 9);
}
