// A coral hibiscus with a straight stem and a closed bud beside it, flat washes,
// even spacing; clear but without depth.
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

// a thin tapered stroke-like shape from (x, y) along ang
function spike(x, y, ang, len, w) {
  brush.beginShape(0.4);
  brush.vertex(x - w * sin(ang), y + w * cos(ang));
  brush.vertex(x + len * 0.6 * cos(ang) - w * 0.6 * sin(ang), y + len * 0.6 * sin(ang) + w * 0.6 * cos(ang));
  brush.vertex(x + len * cos(ang), y + len * sin(ang));
  brush.vertex(x + len * 0.6 * cos(ang) + w * 0.6 * sin(ang), y + len * 0.6 * sin(ang) - w * 0.6 * cos(ang));
  brush.vertex(x + w * sin(ang), y - w * cos(ang));
  brush.endShape(CLOSE);
}

// a closed polygon through a list of [x, y] points
function poly(pts, curv) {
  brush.beginShape(curv);
  for (const p of pts) brush.vertex(p[0], p[1]);
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
  background(246, 244, 238);
  brush.noStroke();
  wash("#5f8a50", 200, 0.05, 0, 0);
  spike(300, 570, -HALF_PI, 330, 5);
  spike(300, 420, -1.0, 150, 4);
  for (let i = 0; i < 5; i++) {
    wash("#f27860", 200, 0.05, 0, 0);
    flatpetal(300, 230, -HALF_PI + i * TWO_PI / 5, 125, 95);
  }
  wash("#9c1e34", 220, 0.05, 0, 0);
  brush.circle(300, 230, 24);
  wash("#f27860", 200, 0.05, 0, 0);
  poly([[370, 300], [385, 250], [400, 300]], 0.5);
}
