// Three purple anemones: round violet petals in two glazes around ink-dark centres
// with a ring of stamens, thin green stems and feathery leaves below.
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

function flower(x, y, r, col, deep, seed) {
  for (let k = 0; k < 6; k++) {
    const a = k * TWO_PI / 6 + seed;
    wash(col, 170, 0.4, 0.55, 0.65);
    blob(x + r * 0.55 * cos(a), y + r * 0.55 * sin(a), r * 0.5, r * 0.42, 0.4, seed * 10 + k);
  }
  wash(deep, 150, 0.35, 0.55, 0.65);
  blob(x, y, r * 0.55, r * 0.5, 0.4, seed * 10 + 7);
  wash("#1f1b2e", 230, 0.15, 0.4, 0.5);
  brush.circle(x, y, r * 0.17);
  for (let k = 0; k < 10; k++) {
    const a = k * TWO_PI / 10;
    wash("#2a2238", 220, 0.05, 0.3, 0.4);
    brush.circle(x + r * 0.27 * cos(a), y + r * 0.27 * sin(a), 3);
  }
}

function draw() {
  translate(-width / 2, -height / 2);
  background(249, 246, 240);
  randomSeed(331);
  noiseSeed(331);
  brush.noStroke();
  const heads = [[230, 230, 95], [400, 300, 75], [190, 420, 60]];
  for (const [x, y, r] of heads) {
    wash("#5f7f48", 190, 0.1, 0.3, 0.4);
    poly([[x - 3, y + r * 0.5], [300 + (x - 300) * 0.2 - 3, 600], [300 + (x - 300) * 0.2 + 3, 600], [x + 3, y + r * 0.5]], 0.5);
  }
  for (let k = 0; k < 5; k++) {
    wash(k % 2 ? "#6f9456" : "#88a866", 170, 0.35, 0.55, 0.6);
    blob(250 + k * 30, 520 + (k % 2) * 20, 55, 16, 0.8, 40 + k);
  }
  flower(230, 230, 95, "#9a7fc4", "#6d4f9e", 1);
  flower(400, 300, 75, "#b48fd0", "#7c5aa8", 2);
  flower(190, 420, 60, "#8c6cb8", "#5e4290", 3);
}
