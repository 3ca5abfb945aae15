// Rolling green fields under a summer sky: bands of fields, a lane, a clump of round trees.
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
  wash("#bcd8ee", 170, 0.5, 0.5, 0.6);
  poly([[0, 0], [600, 0], [600, 230], [0, 250]], 0.5);
  wash("#ffffff", 200, 0.45, 0.4, 0.5);
  poly([[80, 90], [200, 70], [260, 100], [140, 120]], 0.9);
  poly([[360, 60], [480, 50], [520, 80], [400, 96]], 0.9);
  wash("#a9c48a", 190, 0.4, 0.5, 0.6);
  poly([[0, 250], [200, 215], [420, 240], [600, 215], [600, 330], [0, 340]], 0.8);
  wash("#d8c56c", 190, 0.35, 0.5, 0.6);
  poly([[0, 340], [300, 300], [600, 330], [600, 430], [0, 450]], 0.8);
  wash("#6f9a4f", 200, 0.35, 0.5, 0.6);
  poly([[0, 450], [260, 410], [600, 440], [600, 600], [0, 600]], 0.8);
  wash("#e9dcc0", 200, 0.2, 0.4, 0.5);
  poly([[260, 600], [330, 600], [318, 420], [306, 420]], 0.6);
  for (let k = 0; k < 5; k++) {
    wash(k % 2 ? "#3d6b3c" : "#4f7f47", 200, 0.3, 0.5, 0.5);
    brush.circle(420 + k * 22, 300 - (k % 2) * 14, 24 - k * 2);
  }
  wash("#5a4631", 220, 0.15, 0.4, 0.5);
  poly([[438, 318], [444, 318], [444, 340], [438, 340]], 0.1);
}
