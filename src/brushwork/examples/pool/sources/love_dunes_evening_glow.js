// Dunes in the evening: a glowing apricot sky, four sweeping dunes whose lit faces
// go from sand to rust, each with a violet shadow on its lee side.
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

function crest(y, amp, phase) {
  const pts = [[-20, 620]];
  for (let k = 0; k <= 10; k++) pts.push([k * 64 - 20, y - amp * sin(k * 0.55 + phase)]);
  pts.push([620, 620]);
  return pts;
}

function draw() {
  translate(-width / 2, -height / 2);
  background(251, 244, 234);
  randomSeed(227);
  noiseSeed(227);
  brush.noStroke();

  wash("#f7c99c", 170, 0.55, 0.6, 0.7);
  blob(300, 120, 340, 150, 0.4, 1);
  wash("#f1a77f", 120, 0.55, 0.6, 0.7);
  blob(430, 220, 220, 50, 0.5, 2);
  wash("#fff0cf", 230, 0.3, 0.4, 0.5);
  brush.circle(470, 190, 32);
  const sand = ["#efc48e", "#e4a86d", "#cf8552", "#b5643c"];
  for (let i = 0; i < 4; i++) {
    wash(sand[i], 185 + i * 10, 0.4, 0.55, 0.65);
    poly(crest(270 + i * 85, 40 + i * 10, i * 1.3), 0.85);
    wash("#8a6a8c", 110 + i * 15, 0.4, 0.55, 0.65);
    const x = 120 + i * 110;
    poly([[x, 300 + i * 85], [x + 110, 330 + i * 80], [x + 60, 380 + i * 80], [x - 20, 350 + i * 85]], 0.8);
  }
  // a line of tiny camels on the far crest, for scale
  for (let k = 0; k < 3; k++) {
    wash("#5a3e32", 220, 0.05, 0.3, 0.4);
    blob(250 + k * 22, 255 - k * 2, 7, 4, 0.3, k + 20);
  }
}
