// A pale yellow hibiscus on cream paper, so faint against the ground that the flower
// barely reads; even the centre is weak.
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

// set colour, opacity, bleed and texture in one call
function wash(col, op, bleed, tex, border) {
  brush.fill(col, op);
  brush.fillBleed(bleed);
  brush.fillTexture(tex, border);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(250, 240, 205);
  brush.noStroke();
  for (let i = 0; i < 5; i++) {
    wash("#f8ecb8", 140, 0.05, 0, 0);
    flatpetal(300, 300, -HALF_PI + i * TWO_PI / 5, 160, 120);
  }
  wash("#f0d8a0", 140, 0.05, 0, 0);
  brush.circle(300, 300, 30);
}
