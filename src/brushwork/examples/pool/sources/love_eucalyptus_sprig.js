// A eucalyptus sprig curving across the page: round silver-blue leaves in two
// translucent layers along a thin plum stem, overlapping where they meet.
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

// set colour, opacity, bleed and texture in one call
function wash(col, op, bleed, tex, border) {
  brush.fill(col, op);
  brush.fillBleed(bleed);
  brush.fillTexture(tex, border);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(247, 246, 241);
  randomSeed(131);
  noiseSeed(131);
  brush.noStroke();

  const stem = [];
  for (let k = 0; k <= 9; k++) {
    const t = k / 9;
    stem.push([110 + 380 * t, 480 - 380 * t + 90 * sin(PI * t)]);
  }
  for (let k = 0; k < 9; k++) {
    wash("#7d4a5a", 170, 0.1, 0.3, 0.4);
    spike(stem[k][0], stem[k][1], atan2(stem[k + 1][1] - stem[k][1], stem[k + 1][0] - stem[k][0]), 60, 3);
  }
  const cols = ["#8fb0a8", "#a8c2bb", "#7a9e9a", "#b4c9b6"];
  for (let k = 1; k <= 9; k++) {
    const [x, y] = stem[k];
    const r = map(k, 1, 9, 46, 24);
    for (const side of [-1, 1]) {
      wash(cols[(k + (side > 0 ? 1 : 0)) % 4], 190, 0.35, 0.55, 0.7);
      blob(x + side * r * 0.7, y + side * r * 0.6 - 10, r, r * 0.9, 0.35, k * 3 + side);
    }
  }
  for (let k = 2; k <= 8; k += 2) {
    wash("#5f8a8a", 110, 0.4, 0.6, 0.6);
    blob(stem[k][0] + 12, stem[k][1] + 8, 20, 16, 0.5, k * 5);
  }
}
