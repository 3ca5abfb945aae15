// An orange hibiscus pushed into the lower-left with flat petals and a dark centre;
// the rest of the page is bare.
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
  background(251, 248, 240);
  brush.noStroke();
  const cx = 220, cy = 380;
  for (let i = 0; i < 5; i++) {
    wash("#f58a32", 200, 0.05, 0.1, 0);
    flatpetal(cx, cy, -0.3 + i * TWO_PI / 5, 140, 110);
  }
  wash("#8a2414", 220, 0.05, 0.1, 0);
  brush.circle(cx, cy, 28);
}
