// A lotus lost in mud: a garish pink bloom laid over a brown-olive pond in heavy,
// opaque washes, the petals a shapeless pile.
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
  background(232, 226, 214);
  randomSeed(347);
  noiseSeed(347);
  brush.noStroke();
  wash("#6a5a2e", 230, 0.3, 0.2, 0.3);
  poly([[0, 0], [600, 0], [600, 600], [0, 600]], 0.3);
  wash("#4a3a22", 200, 0.3, 0.2, 0.3);
  blob(300, 420, 260, 120, 0.6, 2);
  for (let k = 0; k < 8; k++) {
    wash(k % 2 ? "#ff3fa0" : "#c24a7a", 230, 0.2, 0.2, 0.3);
    blob(300 + random(-50, 50), 300 + random(-40, 40), random(40, 70), random(30, 50), 0.7, k + 5);
  }
}
