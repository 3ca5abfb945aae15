// Leaves piled into a neon heap: acid green, hot pink and cyan shapes stacked in
// the middle until they turn to mud, no stems, no air.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

// an irregular rounded wash, radius r, wobble 0..1
function blob(x, y, rx, ry, wobble, seed) {
  brush.beginShape(0.9);
  for (let k = 0; k < 12; k++) {
    const a = k * TWO_PI / 12;
    const m = 1 + wobble * (noise(seed + k * 0.5) - 0.5);
    brush.vertex(x + rx * m * cos(a), y + ry * m * sin(a));
  }
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
  background(240, 240, 236);
  randomSeed(313);
  noiseSeed(313);
  brush.noStroke();
  const cols = ["#7dff2a", "#ff2fb0", "#22e5ff", "#9a7a2a"];
  for (let k = 0; k < 16; k++) {
    wash(cols[k % 4], 230, 0.25, 0.2, 0.3);
    blob(300 + random(-90, 90), 300 + random(-90, 90), random(40, 80), random(20, 40), 0.8, k);
  }
}
