// A peach hibiscus on pale blue paper, five flat petals plus a second smaller ring,
// a rose centre; two passes but each is flat and the shapes are repeated exactly.
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
  background(232, 240, 246);
  brush.noStroke();
  const cx = 300, cy = 300;
  for (let i = 0; i < 5; i++) {
    wash("#f6b08a", 210, 0.05, 0.1, 0);
    flatpetal(cx, cy, -HALF_PI + i * TWO_PI / 5, 160, 120);
  }
  for (let i = 0; i < 5; i++) {
    wash("#ef8a6e", 180, 0.05, 0.1, 0);
    flatpetal(cx, cy, -HALF_PI + i * TWO_PI / 5, 80, 60);
  }
  wash("#c2334e", 220, 0.05, 0.1, 0);
  brush.circle(cx, cy, 24);
}
