// A seascape gone wrong: a brown-green sea, a magenta sky laid over it and a
// grey blot of a boat, the washes muddied where they meet.
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
  background(236, 232, 222);
  noiseSeed(229);
  brush.noStroke();
  wash("#c0398a", 200, 0.3, 0.2, 0.3);
  poly([[0, 0], [600, 0], [600, 330], [0, 330]], 0.4);
  wash("#6b6a35", 220, 0.3, 0.2, 0.3);
  poly([[0, 250], [600, 270], [600, 600], [0, 600]], 0.4);
  wash("#5a3b2a", 200, 0.3, 0.2, 0.3);
  blob(300, 420, 280, 120, 0.6, 3);
  wash("#7d7d7d", 230, 0.1, 0.2, 0.3);
  blob(300, 300, 60, 35, 0.5, 4);
}
