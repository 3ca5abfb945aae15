// A calm seascape: a pale graded sky, a low headland, a small sail and soft ripples.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

function wash(col, op, bleed, tex, border) {
  brush.fill(col, op);
  brush.fillBleed(bleed);
  brush.fillTexture(tex, border);
}

function poly(pts, curv) {
  brush.beginShape(curv);
  for (const p of pts) brush.vertex(p[0], p[1]);
  brush.endShape(CLOSE);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(250, 246, 238);
  brush.noStroke();
  wash("#c8dced", 170, 0.5, 0.5, 0.6);
  poly([[0, 0], [600, 0], [600, 220], [0, 250]], 0.6);
  wash("#f6dcc2", 120, 0.5, 0.5, 0.6);
  poly([[0, 200], [600, 180], [600, 300], [0, 305]], 0.7);
  wash("#7c93a6", 190, 0.3, 0.5, 0.6);
  poly([[0, 300], [70, 262], [160, 258], [240, 300]], 0.8);
  wash("#8fb1c7", 180, 0.4, 0.5, 0.6);
  poly([[0, 305], [600, 300], [600, 600], [0, 600]], 0.4);
  wash("#5e86a3", 170, 0.35, 0.5, 0.6);
  poly([[0, 430], [600, 410], [600, 600], [0, 600]], 0.6);
  for (let k = 0; k < 6; k++) {
    wash("#e9f1f5", 170, 0.25, 0.4, 0.5);
    const y = 340 + k * 40;
    poly([[60 + k * 70, y], [200 + k * 60, y - 6], [210 + k * 60, y + 4], [70 + k * 70, y + 8]], 0.5);
  }
  wash("#fbfaf4", 240, 0.15, 0.3, 0.4);
  poly([[430, 330], [440, 250], [480, 330]], 0.2);
  wash("#9a5a3c", 210, 0.15, 0.4, 0.5);
  poly([[418, 334], [492, 334], [480, 348], [428, 348]], 0.3);
}
