// Three ginkgo leaves in a row, painted flat: yellow-green fans with hard edges and
// straight stems, evenly spaced, no layering.
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

function fan(x, y, r) {
  brush.beginShape(0.5);
  brush.vertex(x, y);
  for (let k = 0; k <= 8; k++) {
    const a = -PI * 0.85 + k * PI * 0.7 / 8;
    brush.vertex(x + r * cos(a), y + r * sin(a));
  }
  brush.endShape(CLOSE);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(250, 248, 242);
  brush.noStroke();
  for (let k = 0; k < 3; k++) {
    const x = 140 + k * 160;
    wash("#c8c24a", 220, 0.05, 0, 0);
    fan(x, 330, 110);
    wash("#7a6a3a", 220, 0.05, 0, 0);
    poly([[x - 3, 330], [x + 3, 330], [x + 3, 450], [x - 3, 450]], 0);
  }
}
