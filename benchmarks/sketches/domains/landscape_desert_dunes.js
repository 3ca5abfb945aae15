// Desert dunes under a hot pale sky: overlapping ochre curves, shadowed lee sides, a small sun.
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

function dune(y, amp, seed) {
  const pts = [[-20, 620]];
  for (let k = 0; k <= 8; k++) pts.push([k * 80 - 20, y - amp * sin(k * 0.7 + seed)]);
  pts.push([620, 620]);
  return pts;
}

function draw() {
  translate(-width / 2, -height / 2);
  background(250, 246, 238);
  brush.noStroke();
  wash("#f6e6c8", 170, 0.5, 0.5, 0.6);
  poly([[0, 0], [600, 0], [600, 260], [0, 260]], 0.5);
  wash("#fff3d0", 230, 0.25, 0.4, 0.5);
  brush.circle(150, 110, 40);
  const cols = ["#ecc48d", "#e2a866", "#d18a4c", "#bb6b36"];
  for (let i = 0; i < 4; i++) {
    wash(cols[i], 180 + i * 10, 0.4 - i * 0.05, 0.5, 0.6);
    brush.beginShape(0.8);
    for (const p of dune(240 + i * 85, 35 + i * 8, i * 1.7)) brush.vertex(p[0], p[1]);
    brush.endShape(CLOSE);
  }
  wash("#8f4a2a", 150, 0.3, 0.5, 0.6);
  poly([[330, 420], [430, 360], [470, 430], [380, 470]], 0.8);
  poly([[40, 520], [150, 470], [190, 540], [90, 570]], 0.8);
  wash("#6b5a3a", 210, 0.2, 0.4, 0.5);
  for (let k = 0; k < 3; k++) brush.circle(470 + k * 18, 300 + k * 3, 4);
}
