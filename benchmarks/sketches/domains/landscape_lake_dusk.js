// A lake at dusk: a violet-to-amber sky, dark far shore, the glow mirrored in the water.
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
  wash("#b9a6cf", 150, 0.45, 0.5, 0.6);
  poly([[0, 0], [600, 0], [600, 190], [0, 230]], 0.6);
  wash("#f3b27a", 170, 0.45, 0.5, 0.6);
  poly([[0, 160], [600, 140], [600, 300], [0, 310]], 0.7);
  wash("#ffe2a8", 210, 0.3, 0.4, 0.5);
  brush.circle(390, 262, 34);
  wash("#4b4d6e", 200, 0.3, 0.5, 0.6);
  poly([[0, 300], [90, 262], [190, 285], [300, 255], [430, 280], [600, 262], [600, 320], [0, 322]], 0.8);
  wash("#f0b98a", 140, 0.4, 0.5, 0.6);
  poly([[0, 330], [600, 330], [600, 460], [0, 470]], 0.5);
  wash("#ffe7b8", 180, 0.35, 0.5, 0.5);
  poly([[360, 336], [420, 336], [440, 420], [340, 420]], 0.7);
  wash("#6d6a93", 150, 0.4, 0.5, 0.6);
  poly([[0, 470], [600, 455], [600, 600], [0, 600]], 0.6);
  for (let k = 0; k < 4; k++) {
    wash("#38395a", 190, 0.25, 0.5, 0.5);
    poly([[40 + k * 22, 560], [52 + k * 22, 470 - k * 8], [64 + k * 22, 560]], 0.4);
  }
  wash("#fbe3c0", 120, 0.35, 0.5, 0.5);
  poly([[150, 388], [330, 380], [330, 392], [150, 398]], 0.5);
}
