// A snowy ridge at first light: a pink sky, a white ridge with blue shadows, dark pines below.
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
  wash("#f3c7c4", 150, 0.5, 0.5, 0.6);
  poly([[0, 0], [600, 0], [600, 280], [0, 280]], 0.5);
  wash("#c9c5e3", 140, 0.5, 0.5, 0.6);
  poly([[0, 0], [600, 0], [600, 120], [0, 150]], 0.6);
  wash("#aab8d6", 200, 0.3, 0.5, 0.6);
  poly([[0, 330], [140, 200], [260, 150], [380, 230], [600, 180], [600, 380], [0, 380]], 0.6);
  wash("#f6f6fa", 220, 0.3, 0.3, 0.4);
  poly([[60, 310], [160, 215], [260, 170], [300, 260], [200, 300]], 0.6);
  wash("#7f92bf", 160, 0.3, 0.5, 0.6);
  poly([[260, 170], [380, 232], [330, 300], [280, 260]], 0.5);
  wash("#e9ecf4", 200, 0.4, 0.4, 0.5);
  poly([[0, 380], [600, 370], [600, 600], [0, 600]], 0.5);
  for (let k = 0; k < 9; k++) {
    wash(k % 2 ? "#23423a" : "#2f5548", 200, 0.2, 0.5, 0.5);
    const x = 40 + k * 62;
    const h = 80 + (k * 37) % 50;
    poly([[x - 18, 470], [x, 470 - h], [x + 18, 470]], 0.3);
  }
  wash("#9aa6c8", 130, 0.4, 0.5, 0.6);
  poly([[0, 500], [600, 480], [600, 520], [0, 540]], 0.7);
}
