// A fern frond on a diagonal: a curved plum-green rachis with paired pinnae that
// shrink toward the tip, two greens layered, a paler second frond behind.
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

// a leaflet: a pointed oval from (x, y) along angle ang
function leaflet(x, y, ang, len, w) {
  brush.beginShape(0.7);
  brush.vertex(x, y);
  brush.vertex(x + len * 0.5 * cos(ang) - w * sin(ang), y + len * 0.5 * sin(ang) + w * cos(ang));
  brush.vertex(x + len * cos(ang), y + len * sin(ang));
  brush.vertex(x + len * 0.5 * cos(ang) + w * sin(ang), y + len * 0.5 * sin(ang) - w * cos(ang));
  brush.endShape(CLOSE);
}

function frond(x0, y0, x1, y1, bend, size, cols, op) {
  for (let k = 0; k <= 11; k++) {
    const t = k / 11;
    const x = lerp(x0, x1, t) + bend * sin(PI * t);
    const y = lerp(y0, y1, t) + bend * 0.4 * sin(PI * t);
    const along = atan2(y1 - y0, x1 - x0);
    const len = size * (1 - 0.7 * t);
    for (const side of [-1, 1]) {
      wash(cols[(k + (side > 0 ? 1 : 0)) % cols.length], op, 0.3, 0.5, 0.6);
      leaflet(x, y, along + side * 1.05, len, len * 0.22);
    }
  }
  wash("#5d5a3a", 190, 0.1, 0.3, 0.4);
  poly([[x0 - 3, y0], [x1, y1], [x0 + 3, y0]], 0.6);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(248, 246, 238);
  randomSeed(307);
  noiseSeed(307);
  brush.noStroke();
  frond(470, 560, 170, 90, -30, 70, ["#c7d8b8", "#b5cca4"], 150);
  frond(110, 540, 470, 70, 40, 95, ["#5f8f4e", "#7aa35c", "#4d7d45"], 195);
  wash("#8fb57a", 110, 0.45, 0.6, 0.6);
  blob(250, 330, 60, 30, 0.5, 4);
}
