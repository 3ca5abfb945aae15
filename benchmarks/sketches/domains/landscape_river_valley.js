// A river valley: hills on both sides, a winding blue river catching the light.
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
  wash("#d9e6ef", 170, 0.5, 0.5, 0.6);
  poly([[0, 0], [600, 0], [600, 220], [0, 220]], 0.5);
  wash("#a3b7c9", 180, 0.4, 0.5, 0.6);
  poly([[0, 230], [150, 170], [300, 220], [460, 160], [600, 210], [600, 260], [0, 260]], 0.8);
  wash("#7da06f", 200, 0.35, 0.5, 0.6);
  poly([[0, 250], [220, 260], [280, 600], [0, 600]], 0.7);
  wash("#92b36b", 200, 0.35, 0.5, 0.6);
  poly([[330, 250], [600, 240], [600, 600], [360, 600]], 0.7);
  wash("#6d95c0", 210, 0.3, 0.5, 0.6);
  brush.beginShape(0.9);
  for (let k = 0; k <= 10; k++) brush.vertex(270 + 40 * sin(k * 0.9), 250 + k * 35);
  for (let k = 10; k >= 0; k--) brush.vertex(300 + 40 * sin(k * 0.9) + k * 6, 250 + k * 35);
  brush.endShape(CLOSE);
  wash("#eaf2f8", 170, 0.3, 0.4, 0.5);
  poly([[285, 300], [300, 300], [296, 360], [282, 360]], 0.6);
  wash("#4e7346", 190, 0.3, 0.5, 0.6);
  for (let k = 0; k < 4; k++) brush.circle(70 + k * 40, 420 + k * 20, 22);
  wash("#b05b3b", 210, 0.15, 0.4, 0.5);
  poly([[470, 330], [500, 310], [530, 330], [530, 360], [470, 360]], 0.1);
}
