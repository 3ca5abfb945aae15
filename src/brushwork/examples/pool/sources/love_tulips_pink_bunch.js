// A bunch of four pink tulips with long blade leaves, each cup built from a back
// petal and two overlapping front petals; a pale wash of shadow under the bunch.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

// a pointed leaf from its stem end (x, y) along ang
function leaf(x, y, ang, len, wid) {
  brush.beginShape(0.8);
  for (let k = 0; k <= 10; k++) {
    const t = k / 10, w = wid * sin(PI * t) * (1 - 0.3 * t);
    brush.vertex(x + len * t * cos(ang) + w * sin(ang), y + len * t * sin(ang) - w * cos(ang));
  }
  for (let k = 9; k >= 1; k--) {
    const t = k / 10, w = wid * sin(PI * t) * (1 - 0.3 * t);
    brush.vertex(x + len * t * cos(ang) - w * sin(ang), y + len * t * sin(ang) + w * cos(ang));
  }
  brush.endShape(CLOSE);
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

// a thin tapered stroke-like shape from (x, y) along ang
function spike(x, y, ang, len, w) {
  brush.beginShape(0.4);
  brush.vertex(x - w * sin(ang), y + w * cos(ang));
  brush.vertex(x + len * 0.6 * cos(ang) - w * 0.6 * sin(ang), y + len * 0.6 * sin(ang) + w * 0.6 * cos(ang));
  brush.vertex(x + len * cos(ang), y + len * sin(ang));
  brush.vertex(x + len * 0.6 * cos(ang) + w * 0.6 * sin(ang), y + len * 0.6 * sin(ang) - w * 0.6 * cos(ang));
  brush.vertex(x + w * sin(ang), y - w * cos(ang));
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

function tulip(x, y, s, col, deep, seed) {
  wash(col, 190, 0.3, 0.55, 0.7);
  poly([[x - 0.5 * s, y - 0.2 * s], [x - 0.35 * s, y - 0.95 * s], [x, y - 0.6 * s], [x + 0.35 * s, y - 0.95 * s], [x + 0.5 * s, y - 0.2 * s], [x, y + 0.25 * s]], 0.8);
  wash(deep, 150, 0.3, 0.6, 0.6);
  poly([[x - 0.45 * s, y - 0.3 * s], [x - 0.1 * s, y - 1.0 * s], [x + 0.15 * s, y - 0.3 * s], [x - 0.05 * s, y + 0.22 * s]], 0.9);
  wash(col, 160, 0.3, 0.6, 0.6);
  poly([[x + 0.45 * s, y - 0.3 * s], [x + 0.15 * s, y - 0.95 * s], [x - 0.1 * s, y - 0.3 * s], [x + 0.05 * s, y + 0.22 * s]], 0.9);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(250, 246, 244);
  randomSeed(121);
  noiseSeed(121);
  brush.noStroke();

  wash("#d9d3e6", 140, 0.5, 0.6, 0.7);
  blob(300, 540, 200, 40, 0.5, 4);
  const heads = [[220, 230, 95], [320, 180, 105], [405, 260, 90], [290, 320, 80]];
  for (const h of heads) {
    wash("#5f8c52", 200, 0.15, 0.4, 0.5);
    spike(h[0], h[1] + 20, atan2(530 - h[1], 300 - h[0]), dist(h[0], h[1], 300, 530), 5);
  }
  wash("#7aa55e", 180, 0.3, 0.5, 0.6);
  leaf(290, 530, -1.95, 240, 34);
  wash("#557f48", 180, 0.3, 0.5, 0.6);
  leaf(310, 530, -1.1, 220, 30);
  wash("#94b877", 160, 0.35, 0.5, 0.6);
  leaf(300, 535, -2.6, 200, 28);
  const cols = [["#f28cb0", "#d6467e"], ["#f7a8c0", "#e0608a"], ["#ee7aa0", "#c43a70"], ["#f9b8c8", "#e47a98"]];
  for (let i = 0; i < 4; i++) tulip(heads[i][0], heads[i][1], heads[i][2], cols[i][0], cols[i][1], i);
}
