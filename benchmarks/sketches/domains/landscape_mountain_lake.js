// A mountain lake: blue peaks with snow caps, a dark pine shore and the peaks mirrored below.
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

function peak(x, base, h, w) {
  return [[x - w, base], [x - w * 0.3, base - h * 0.7], [x, base - h], [x + w * 0.4, base - h * 0.6], [x + w, base]];
}

function draw() {
  translate(-width / 2, -height / 2);
  background(250, 246, 238);
  brush.noStroke();
  wash("#d5e4f0", 160, 0.5, 0.5, 0.6);
  poly([[0, 0], [600, 0], [600, 260], [0, 260]], 0.5);
  wash("#8aa0bf", 200, 0.3, 0.5, 0.6);
  poly(peak(200, 300, 210, 190), 0.3);
  wash("#7088ab", 200, 0.3, 0.5, 0.6);
  poly(peak(430, 300, 170, 200), 0.3);
  wash("#fdfdfb", 230, 0.2, 0.3, 0.4);
  poly([[200, 90], [170, 140], [205, 128], [232, 146]], 0.4);
  poly([[430, 130], [405, 170], [438, 160], [462, 175]], 0.4);
  wash("#2f5544", 210, 0.3, 0.5, 0.6);
  poly([[0, 330], [0, 290], [150, 280], [320, 300], [600, 285], [600, 330]], 0.7);
  wash("#a7bfd6", 180, 0.4, 0.5, 0.6);
  poly([[0, 330], [600, 330], [600, 600], [0, 600]], 0.3);
  wash("#7f97b8", 120, 0.45, 0.5, 0.6);
  poly([[20, 335], [380, 335], [200, 490]], 0.6);
  poly([[250, 335], [600, 335], [430, 460]], 0.6);
  for (let k = 0; k < 7; k++) {
    wash(k % 2 ? "#24463a" : "#30594a", 200, 0.2, 0.5, 0.5);
    const x = 20 + k * 30;
    poly([[x - 12, 320], [x, 250 - (k % 3) * 14], [x + 12, 320]], 0.3);
  }
  wash("#fdfbf4", 150, 0.3, 0.4, 0.5);
  poly([[300, 420], [520, 414], [520, 424], [300, 428]], 0.5);
}
