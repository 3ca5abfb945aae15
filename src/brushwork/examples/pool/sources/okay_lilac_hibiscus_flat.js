// A lilac hibiscus on pale lavender paper: five flat petals, a magenta centre and two
// leaves, each in one even wash with crisp edges.
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
  background(240, 236, 246);
  brush.noStroke();
  const cx = 300, cy = 290;
  wash("#6e9a7a", 200, 0.05, 0, 0);
  leaf(cx - 80, cy + 140, 2.4, 120, 38);
  leaf(cx + 80, cy + 140, 0.7, 120, 38);
  for (let i = 0; i < 5; i++) {
    wash("#b79ad8", 210, 0.05, 0, 0);
    flatpetal(cx, cy, -HALF_PI + 0.3 + i * TWO_PI / 5, 150, 120);
  }
  wash("#a0206e", 220, 0.05, 0, 0);
  brush.circle(cx, cy, 30);
}
