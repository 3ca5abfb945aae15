// A lake under mountains, painted flat: two triangle peaks, a band of water and a
// strip of green shore, hard edges and even washes.
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
  background(250, 248, 242);
  brush.noStroke();
  wash("#cfe0ee", 200, 0.05, 0, 0);
  poly([[0, 0], [600, 0], [600, 320], [0, 320]], 0);
  wash("#8d9fb8", 220, 0.05, 0, 0);
  poly([[60, 320], [200, 130], [340, 320]], 0);
  wash("#7d90aa", 220, 0.05, 0, 0);
  poly([[260, 320], [420, 110], [560, 320]], 0);
  wash("#6fa7c9", 220, 0.05, 0, 0);
  poly([[0, 320], [600, 320], [600, 470], [0, 470]], 0);
  wash("#79a35f", 220, 0.05, 0, 0);
  poly([[0, 470], [600, 470], [600, 600], [0, 600]], 0);
}
