// A coral hibiscus slammed against the right edge so most of it falls off the page,
// leaving two stubby petals and half a centre.
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
  background(248, 245, 240);
  brush.noStroke();
  for (let i = 0; i < 5; i++) {
    wash("#f27860", 200, 0.05, 0, 0);
    flatpetal(640, 560, -HALF_PI + i * TWO_PI / 5, 120, 90);
  }
  wash("#9c1e34", 220, 0.05, 0, 0);
  brush.circle(640, 560, 30);
}
