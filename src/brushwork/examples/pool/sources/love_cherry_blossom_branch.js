// A cherry blossom branch from the upper left: a dark wet branch with twigs, pale
// pink five-petal blossoms in clusters with deeper centres, a few buds.
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

function blossom(x, y, r, seed) {
  for (let k = 0; k < 5; k++) {
    const a = k * TWO_PI / 5 + seed;
    wash(k % 2 ? "#f6c6d2" : "#f2b3c4", 180, 0.35, 0.5, 0.6);
    blob(x + r * 0.6 * cos(a), y + r * 0.6 * sin(a), r * 0.5, r * 0.45, 0.3, seed * 7 + k);
  }
  wash("#d0506e", 200, 0.2, 0.4, 0.5);
  brush.circle(x, y, r * 0.22);
}

function limb(pts, w) {
  brush.beginShape(0.6);
  for (const p of pts) brush.vertex(p[0], p[1] - w);
  for (let k = pts.length - 1; k >= 0; k--) brush.vertex(pts[k][0], pts[k][1] + w * (1 - k / pts.length));
  brush.endShape(CLOSE);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(250, 246, 240);
  randomSeed(337);
  noiseSeed(337);
  brush.noStroke();
  wash("#4a3434", 210, 0.15, 0.4, 0.5);
  limb([[-20, 90], [120, 140], [260, 230], [380, 300], [520, 420]], 12);
  limb([[200, 195], [260, 120], [330, 80]], 4);
  limb([[330, 275], [360, 380], [340, 470]], 4);
  const spots = [[110, 120, 50], [180, 185, 42], [265, 110, 46], [335, 80, 36], [300, 255, 54], [400, 320, 46],
                 [350, 395, 42], [345, 475, 36], [470, 385, 46], [535, 440, 40]];
  for (let k = 0; k < spots.length; k++) blossom(spots[k][0], spots[k][1], spots[k][2], k * 1.3);
  for (let k = 0; k < 4; k++) {
    wash("#c0405e", 200, 0.2, 0.4, 0.5);
    blob(200 + k * 90, 260 + k * 40, 7, 10, 0.3, 60 + k);
  }
}
