// A red hibiscus with four symmetric leaves in a cross, each a single wash: a neat
// diagram of a flower more than a painting of one.
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
  background(245, 240, 230);
  brush.noStroke();
  const cx = 300, cy = 300;
  for (let i = 0; i < 4; i++) {
    wash("#4f7a4a", 200, 0.05, 0.1, 0.1);
    leaf(cx + 150 * cos(i * HALF_PI + QUARTER_PI), cy + 150 * sin(i * HALF_PI + QUARTER_PI), i * HALF_PI + QUARTER_PI, 110, 35);
  }
  for (let i = 0; i < 5; i++) {
    wash("#dc2f2f", 200, 0.05, 0.1, 0.1);
    flatpetal(cx, cy, -HALF_PI + i * TWO_PI / 5, 150, 110);
  }
  wash("#5a0a14", 230, 0.05, 0.1, 0.1);
  brush.circle(cx, cy, 26);
}
