// Misty layered hills at dawn: a peach sky, a pale sun, and four ranges of hills
// going from cool blue-grey far away to deep green near, a band of mist between them
// and a line of soft trees on the nearest ridge.
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

function ridge(y, amp, seed) {
  const pts = [[-20, 620]];
  for (let k = 0; k <= 8; k++) pts.push([k * 80 - 20, y - amp * noise(seed + k * 0.45)]);
  pts.push([620, 620]);
  return pts;
}

function draw() {
  translate(-width / 2, -height / 2);
  background(251, 244, 236);
  randomSeed(141);
  noiseSeed(141);
  brush.noStroke();

  wash("#f7c9a8", 160, 0.5, 0.6, 0.7);
  blob(300, 150, 300, 140, 0.4, 1);
  wash("#f2a98a", 110, 0.5, 0.6, 0.7);
  blob(380, 260, 220, 70, 0.5, 2);
  wash("#fff1c8", 255, 0.3, 0.4, 0.5);
  brush.circle(400, 200, 45);

  const cols = ["#b9c3d6", "#8fa4bb", "#6a8a8a", "#3f6a52"];
  const ys = [330, 390, 450, 520];
  for (let i = 0; i < 4; i++) {
    wash(cols[i], 180 + i * 15, 0.45 - i * 0.05, 0.55, 0.7);
    poly(ridge(ys[i], 110 - i * 15, i * 10), 0.8);
  }
  wash("#2d4d3c", 170, 0.3, 0.5, 0.6);
  blob(110, 560, 130, 50, 0.6, 9);
  // a line of soft trees on the near ridge, and a band of mist between the ranges
  for (let k = 0; k < 7; k++) {
    wash(k % 2 ? "#2f5a42" : "#3e6a4e", 190, 0.25, 0.5, 0.6);
    blob(330 + k * 38 + random(-8, 8), 470 - noise(k * 0.4) * 40, random(12, 18), random(22, 34), 0.4, k * 5);
  }
  wash("#f4efe8", 200, 0.45, 0.6, 0.7);
  blob(220, 405, 200, 22, 0.5, 11);
  wash("#fde3c8", 120, 0.45, 0.6, 0.7);
  blob(430, 330, 140, 18, 0.5, 13);
}
