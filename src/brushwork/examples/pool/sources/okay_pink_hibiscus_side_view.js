// A pink hibiscus seen from the side as a simple flat cup of three petals on a straight
// stem with a pale stamen; readable, flat, a little stiff.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

// a closed polygon through a list of [x, y] points
function poly(pts, curv) {
  brush.beginShape(curv);
  for (const p of pts) brush.vertex(p[0], p[1]);
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

// set colour, opacity, bleed and texture in one call
function wash(col, op, bleed, tex, border) {
  brush.fill(col, op);
  brush.fillBleed(bleed);
  brush.fillTexture(tex, border);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(249, 245, 245);
  brush.noStroke();
  wash("#5c8a52", 200, 0.05, 0, 0);
  spike(300, 560, -HALF_PI, 260, 5);
  wash("#f28db2", 200, 0.05, 0, 0);
  poly([[300, 320], [180, 180], [250, 160], [300, 300]], 0.3);
  poly([[300, 320], [420, 180], [350, 160], [300, 300]], 0.3);
  wash("#e86a9a", 200, 0.05, 0, 0);
  poly([[300, 320], [250, 150], [350, 150]], 0.3);
  wash("#e8c870", 220, 0.05, 0, 0);
  spike(300, 300, -HALF_PI - 0.2, 190, 4);
}
