// A still lake in the evening: a rose-and-grey sky, a low blue far shore, its reflection
// broken by one pale streak, and tall reeds in the near left corner.
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

function draw() {
  translate(-width / 2, -height / 2);
  background(250, 245, 238);
  randomSeed(211);
  noiseSeed(211);
  brush.noStroke();

  wash("#e8b9b4", 150, 0.5, 0.6, 0.7);
  blob(300, 110, 340, 120, 0.4, 1);
  wash("#b8b3cc", 130, 0.5, 0.6, 0.7);
  blob(420, 60, 240, 60, 0.5, 2);
  wash("#f6d6b8", 120, 0.5, 0.6, 0.7);
  blob(200, 210, 260, 40, 0.5, 3);
  // the far shore and its mirror
  wash("#5f6f94", 200, 0.35, 0.5, 0.6);
  poly([[-20, 262], [80, 236], [170, 250], [260, 228], [380, 246], [470, 232], [620, 250], [620, 270], [-20, 272]], 0.8);
  wash("#7d88a8", 120, 0.45, 0.6, 0.7);
  poly([[-20, 272], [620, 270], [560, 300], [300, 310], [40, 298]], 0.8);
  // the water, cooler and deeper toward us
  wash("#d9c2c4", 130, 0.5, 0.6, 0.7);
  blob(300, 360, 330, 70, 0.3, 5);
  wash("#8f9fbc", 150, 0.45, 0.6, 0.7);
  blob(330, 480, 330, 110, 0.3, 6);
  wash("#fbeee0", 200, 0.4, 0.5, 0.6);
  blob(360, 330, 120, 7, 0.4, 7);
  blob(300, 390, 70, 5, 0.4, 8);
  // reeds: thin dark blades leaning out of the corner
  for (let k = 0; k < 9; k++) {
    const x = 30 + k * 16 + random(-6, 6);
    const h = random(120, 230);
    const lean = random(-25, 20);
    wash(k % 3 ? "#4a5a3c" : "#6b6a3f", 200, 0.15, 0.4, 0.5);
    poly([[x - 4, 610], [x + lean, 610 - h], [x + 4, 610]], 0.3);
  }
  wash("#3d4a36", 150, 0.35, 0.5, 0.6);
  blob(70, 590, 110, 30, 0.5, 9);
}
